import { RateLimitBucketEntity, type SchemaDefinition } from '@app/database';
import { AccountTokenEntity } from '../accounts/account-token.entity';
import { AccountEntity } from '../accounts/account.entity';
import { ConnectionEntity } from '../connections/connection.entity';
import { Accounts1763700000000 } from './migrations/1763700000000-Accounts';
import { Connections1763960000000 } from './migrations/1763960000000-Connections';
import { RateLimits1763980000000 } from './migrations/1763980000000-RateLimits';
import { CoursePlatform1764000000004 } from './migrations/1764000000004-CoursePlatform';
import { Contacts1764300000001 } from './migrations/1764300000001-Contacts';
import { PhoneRegions1764400000000 } from './migrations/1764400000000-PhoneRegions';
import { ContactAddresses1764500000000 } from './migrations/1764500000000-ContactAddresses';
import { RegisteredChannels1764600000000 } from './migrations/1764600000000-RegisteredChannels';
import { TrackedLinks1764830000000 } from './migrations/1764830000000-TrackedLinks';
import { Conversations1764840000000 } from './migrations/1764840000000-Conversations';
import { ConversationRetention1764875000000 } from './migrations/1764875000000-ConversationRetention';
import { CourseReplies1764875000001 } from './migrations/1764875000001-CourseReplies';
import { EmptyConversations1764920000000 } from './migrations/1764920000000-EmptyConversations';
import { OutboundContents1764920000001 } from './migrations/1764920000001-OutboundContents';
import { MediaLibrary1764930000000 } from './migrations/1764930000000-MediaLibrary';
import { FlowTokens1764940000000 } from './migrations/1764940000000-FlowTokens';
import { Console1764960000000 } from './migrations/1764960000000-Console';
import { ConversationFilterIndexes1765100000000 } from './migrations/1765100000000-ConversationFilterIndexes';
import { MediaCampaignUses1765300000000 } from './migrations/1765300000000-MediaCampaignUses';
import { InboundMedia1764870000000 } from './migrations/1764870000000-InboundMedia';

/** The gateway's schema: its entities and migrations, in order. */
export const gatewaySchema: SchemaDefinition = {
  schema: 'gateway',
  entities: [AccountEntity, AccountTokenEntity, ConnectionEntity, RateLimitBucketEntity],
  migrations: [
    Accounts1763700000000,
    Connections1763960000000,
    RateLimits1763980000000,
    CoursePlatform1764000000004,
    Contacts1764300000001,
    PhoneRegions1764400000000,
    ContactAddresses1764500000000,
    RegisteredChannels1764600000000,
    TrackedLinks1764830000000,
    Conversations1764840000000,
    InboundMedia1764870000000,
    ConversationRetention1764875000000,
    CourseReplies1764875000001,
    EmptyConversations1764920000000,
    OutboundContents1764920000001,
    MediaLibrary1764930000000,
    FlowTokens1764940000000,
    Console1764960000000,
    ConversationFilterIndexes1765100000000,
    MediaCampaignUses1765300000000,
  ],
};
