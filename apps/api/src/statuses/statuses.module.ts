import { Clock } from '@app/server';
import { Module } from '@nestjs/common';
import { EventsModule } from '../events/events.module';
import { WaAppsModule } from '../wa-apps/wa-apps.module';
import { BillingModule } from '../billing/billing.module';
import { MessageStoreModule } from '../messages/message-store.module';
import { OutboxModule } from '../outbox';
import { SendingModule } from '../sending';
import { CallbackOwnership } from './callback-ownership';
import { MessageStatusService } from './message-status.service';
import { ReceiptReconciler } from './receipt-reconciler';

/**
 * Each message's status and charge from the channel's events (forward only, captured or released),
 * and the settlement pass that fails what never got a receipt; a failure another channel can fix
 * moves a failover route on.
 */
@Module({
  imports: [EventsModule, WaAppsModule, BillingModule, MessageStoreModule, OutboxModule, SendingModule],
  providers: [Clock, MessageStatusService, CallbackOwnership, ReceiptReconciler],
})
export class StatusesModule {}
