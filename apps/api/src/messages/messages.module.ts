import { Clock } from '@app/server';
import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { EventsModule } from '../events/events.module';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { WaAppsModule } from '../wa-apps/wa-apps.module';
import { BillingModule } from '../billing/billing.module';
import { ConversationsModule } from '../conversations/conversations.module';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { UsageModule } from '../usage/usage.module';
import { CallbackOwnership } from './callback-ownership';
import { GatewayMessagesRpcController } from './gateway-messages.rpc.controller';
import { GatewaySendsService } from './gateway-sends';
import { FailoverService } from './failover.service';
import { FailoverRepository } from './failover.repository';
import { MessageStatusService } from './message-status.service';
import { MessagesController } from './messages.controller';
import { MessagesRepository } from './messages.repository';
import { MessagesService } from './messages.service';
import { OutboxModule } from '../outbox';
import { ConsentModule } from '../consent/consent.module';
import { ReceiptReconciler } from './receipt-reconciler';
import { SendWithdrawal } from './send-withdrawal';
import { SendTransaction } from './send-transaction';
import { TierWindowRepository } from './tier-window';

/** Sending through the priority queue, and each message's status and charge from the channel's events. */
@Module({
  imports: [
    AuthModule,
    EventsModule,
    RateLimitModule,
    WaAppsModule,
    BillingModule,
    ConversationsModule,
    IdempotencyModule,
    UsageModule,
    OutboxModule,
    ConsentModule,
  ],
  controllers: [MessagesController, GatewayMessagesRpcController],
  providers: [
    Clock,
    MessagesRepository,
    TierWindowRepository,
    SendTransaction,
    MessagesService,
    GatewaySendsService,
    MessageStatusService,
    FailoverService,
    FailoverRepository,
    CallbackOwnership,
    ReceiptReconciler,
    SendWithdrawal,
  ],
  exports: [TierWindowRepository, MessagesService, GatewaySendsService],
})
export class MessagesModule {}
