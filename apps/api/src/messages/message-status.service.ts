import { Clock } from '@app/server';
import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { EventEnvelope, EventType, MessageStatus, MessageStatusData, RECEIPTLESS_CHANNELS } from '@app/contracts';
import { BillingService } from '../billing/billing.service';
import { EventHandlersRegistry } from '../events';
import { CallbackOwnership } from './callback-ownership';
import { MessageEntity } from './message.entity';
import { MessagesRepository } from './messages.repository';
import { observeMessageStatus } from './message.metrics';

const STATUS_OF: Partial<Record<EventType, MessageStatus>> = {
  'message.sent': 'SENT',
  'message.delivered': 'DELIVERED',
  'message.read': 'READ',
  'message.failed': 'FAILED',
};

/**
 * A status callback that names only the channel's id may overtake the `message.sent` that tells us
 * that id: it is retried (the handler throws) for this long, then dropped as not ours.
 */
export const UNMATCHED_RETRY_SECONDS = 120;

/**
 * Follows each message through the channel's events: the timeline (each status once), the status
 * (forward only, whatever order callbacks arrive in) and the money (captured when delivered or
 * read, released when failed). Every step is idempotent, so a redelivered event changes nothing.
 */
@Injectable()
export class MessageStatusService implements OnModuleInit {
  private readonly logger = new Logger(MessageStatusService.name);

  constructor(
    private readonly messages: MessagesRepository,
    private readonly billing: BillingService,
    private readonly registry: EventHandlersRegistry,
    private readonly ownership: CallbackOwnership,
    private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    for (const type of Object.keys(STATUS_OF) as EventType[]) {
      this.registry.on(type, (event) => this.apply(event));
    }
  }

  async apply(event: EventEnvelope): Promise<void> {
    const status = STATUS_OF[event.type];
    if (!status) return;
    const data = event.data as Partial<MessageStatusData>;
    const message = await this.find(data);
    if (!message) {
      const age = this.clock.nowSeconds() - event.created_at;
      if (!data.message_id && data.provider_message_id && age < UNMATCHED_RETRY_SECONDS) {
        throw new Error(`no message yet for channel id ${data.provider_message_id}; will retry`);
      }
      this.logger.debug({ eventId: event.id, type: event.type }, 'status event for an unknown message: ignored');
      return;
    }
    if (!(await this.ownership.mayUpdate(event, message))) {
      this.logger.warn(
        { eventId: event.id, type: event.type, messageId: message.id, appId: message.appId, eventAppId: event.app_id },
        'status callback from a connection that does not own the message: dropped',
      );
      return;
    }
    if (status === 'SENT' && data.provider_message_id) {
      await this.messages.setProviderId(message.id, data.provider_message_id);
    }
    const occurredAt = typeof data.timestamp === 'number' ? Math.floor(data.timestamp) : event.created_at;
    if (await this.messages.recordEvent(message.id, status, occurredAt))
      observeMessageStatus(message, status, data.error?.code);
    const failure = status === 'FAILED' ? { code: data.error?.code ?? null, reason: data.error?.title ?? null } : null;
    await this.messages.advance(message.id, status, failure);
    // A read receipt implies delivery: either one captures the charge (once). A channel without
    // receipts ends at SENT, so it is charged there.
    const receiptless = RECEIPTLESS_CHANNELS.includes(message.channel);
    if (status === 'DELIVERED' || status === 'READ' || (status === 'SENT' && receiptless)) {
      if (await this.billing.capture(message.id)) {
        this.logger.log({ messageId: message.id }, 'charge captured');
      }
    } else if (status === 'FAILED') {
      if (await this.billing.release(message.id)) {
        this.logger.log({ messageId: message.id }, 'hold released');
      }
    }
  }

  /** By our id when the channel echoed it, else by the channel's id. */
  private async find(data: Partial<MessageStatusData>): Promise<MessageEntity | null> {
    // An id PostgreSQL cannot hold (a NUL byte) names no message of ours; a query would only fail.
    const storable = (id: unknown): id is string => typeof id === 'string' && id.length > 0 && !id.includes('\u0000');
    if (storable(data.message_id) && data.message_id.length <= 64) {
      const byId = await this.messages.findById(data.message_id);
      if (byId) return byId;
    }
    if (storable(data.provider_message_id)) {
      return this.messages.findByProviderId(data.provider_message_id);
    }
    return null;
  }
}
