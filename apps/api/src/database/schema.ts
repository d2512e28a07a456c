import type { SchemaDefinition } from '@app/database';
import { AppEntity } from '../wa-apps/app.entity';
import { BalanceEntity } from '../billing/balance.entity';
import { TransactionEntity } from '../billing/transaction.entity';
import { AppProfileEntity } from '../profiles/app-profile.entity';
import { TemplateEntity } from '../templates/template.entity';
import { ApiTokenEntity } from '../users/api-token.entity';
import { UserEntity } from '../users/user.entity';
import { Initial1763700000000 } from './migrations/1763700000000-Initial';
import { AppsAndTemplates1763730000000 } from './migrations/1763730000000-AppsAndTemplates';
import { HoldEntity } from '../billing/hold.entity';
import { ConversationWindowEntity } from '../conversations/conversation-window.entity';
import { IdempotencyKeyEntity } from '../idempotency/idempotency-key.entity';
import { MessageEventEntity } from '../messages/message-event.entity';
import { MessageEntity } from '../messages/message.entity';
import { RateLimitBucketEntity } from '@app/database';
import { MessagesAndHolds1763740000000 } from './migrations/1763740000000-MessagesAndHolds';
import { SendWindowAndOutbox1763900000001 } from './migrations/1763900000001-SendWindowAndOutbox';
import { IdempotentSendLookup1763900000002 } from './migrations/1763900000002-IdempotentSendLookup';
import { GatewayMessages1763970000000 } from './migrations/1763970000000-GatewayMessages';
import { AppSignals1764000000001 } from './migrations/1764000000001-AppSignals';
import { UsageHourly1764000000003 } from './migrations/1764000000003-UsageHourly';
import { BilledPricing1764100000005 } from './migrations/1764100000005-BilledPricing';
import { Consent1764300000000 } from './migrations/1764300000000-Consent';
import { FailoverAttempts1764300000002 } from './migrations/1764300000002-FailoverAttempts';
import { Campaigns1764400000000 } from './migrations/1764400000000-Campaigns';
import { WholeSendStatement1764500000000 } from './migrations/1764500000000-WholeSendStatement';
import { OutstandingHoldsIndex1764600000000 } from './migrations/1764600000000-OutstandingHoldsIndex';
import { KeyHolders1764700000000 } from './migrations/1764700000000-KeyHolders';
import { FrequencyRules1764810000000 } from './migrations/1764810000000-FrequencyRules';
import { CampaignBudgetReservations1764800000000 } from './migrations/1764800000000-CampaignBudgetReservations';
import { ReportsJoinUp1764820000000 } from './migrations/1764820000000-ReportsJoinUp';
import { CampaignVariants1764830000000 } from './migrations/1764830000000-CampaignVariants';
import { CampaignReplies1764880000000 } from './migrations/1764880000000-CampaignReplies';
import { BotTemplates1764890000000 } from './migrations/1764890000000-BotTemplates';
import { MessageRenderedAs1764940000000 } from './migrations/1764940000000-MessageRenderedAs';
import { CampaignLaunchKey1765000000000 } from './migrations/1765000000000-CampaignLaunchKey';
import { CampaignEntity, CampaignRecipientEntity } from '../campaigns/campaign.entity';

/** The api's schema: its entities and migrations, in order. */
export const apiSchema: SchemaDefinition = {
  schema: 'api',
  entities: [
    UserEntity,
    ApiTokenEntity,
    BalanceEntity,
    TransactionEntity,
    AppEntity,
    AppProfileEntity,
    TemplateEntity,
    MessageEntity,
    MessageEventEntity,
    HoldEntity,
    ConversationWindowEntity,
    IdempotencyKeyEntity,
    RateLimitBucketEntity,
    CampaignEntity,
    CampaignRecipientEntity,
  ],
  migrations: [
    Initial1763700000000,
    AppsAndTemplates1763730000000,
    MessagesAndHolds1763740000000,
    SendWindowAndOutbox1763900000001,
    IdempotentSendLookup1763900000002,
    GatewayMessages1763970000000,
    AppSignals1764000000001,
    UsageHourly1764000000003,
    BilledPricing1764100000005,
    Consent1764300000000,
    FailoverAttempts1764300000002,
    Campaigns1764400000000,
    WholeSendStatement1764500000000,
    OutstandingHoldsIndex1764600000000,
    KeyHolders1764700000000,
    FrequencyRules1764810000000,
    CampaignBudgetReservations1764800000000,
    ReportsJoinUp1764820000000,
    CampaignVariants1764830000000,
    CampaignReplies1764880000000,
    BotTemplates1764890000000,
    MessageRenderedAs1764940000000,
    CampaignLaunchKey1765000000000,
  ],
};
