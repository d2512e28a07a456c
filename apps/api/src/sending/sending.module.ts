import { Clock } from '@app/server';
import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { WaAppsModule } from '../wa-apps/wa-apps.module';
import { BillingModule } from '../billing/billing.module';
import { ConversationsModule } from '../conversations/conversations.module';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { UsageModule } from '../usage/usage.module';
import { ConsentModule } from '../consent/consent.module';
import { MessageStoreModule } from '../messages/message-store.module';
import { OutboxModule } from '../outbox';
import { BotTemplatesModule } from '../templates/bot-templates.module';
import { GatewayMessagesRpcController } from './gateway-messages.rpc.controller';
import { GatewaySendsService } from './gateway-sends';
import { FailoverService } from './failover.service';
import { FailoverRepository } from './failover.repository';
import { MessagesController } from './messages.controller';
import { MessagesService } from './messages.service';
import { SendableTemplatesRepository } from './sendable-templates.repository';
import { SendWithdrawal } from './send-withdrawal';
import { SendTransaction } from './send-transaction';
import { TierWindowRepository } from './tier-window';
import { TemplateSources } from './template-source';

/**
 * Accepting a send, from the api's REST surface or the gateway's: the app, the template or the
 * 24-hour window, consent, the send transaction and its outbox row, and failover to the next channel.
 */
@Module({
  imports: [
    AuthModule,
    RateLimitModule,
    WaAppsModule,
    BillingModule,
    ConversationsModule,
    IdempotencyModule,
    UsageModule,
    ConsentModule,
    MessageStoreModule,
    OutboxModule,
    BotTemplatesModule,
  ],
  controllers: [MessagesController, GatewayMessagesRpcController],
  providers: [
    Clock,
    SendableTemplatesRepository,
    TierWindowRepository,
    SendTransaction,
    MessagesService,
    GatewaySendsService,
    FailoverService,
    FailoverRepository,
    SendWithdrawal,
    TemplateSources,
  ],
  exports: [
    TierWindowRepository,
    MessagesService,
    GatewaySendsService,
    TemplateSources,
    FailoverService,
    SendWithdrawal,
  ],
})
export class SendingModule {}
