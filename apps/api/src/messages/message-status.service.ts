import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { EventEnvelope, EventType, MessageStatus, MessageStatusData, unixSeconds } from '@app/contracts';
import { BalancesRepository } from '../billing/balances.repository';
import { EventHandlersRegistry } from '../events';
import { MessageEntity } from './message.entity';
import { MessagesRepository } from './messages.repository';

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
    private readonly balances: BalancesRepository,
    private readonly registry: EventHandlersRegistry,
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
      const age = unixSeconds() - event.created_at;
      if (!data.message_id && data.provider_message_id && age < UNMATCHED_RETRY_SECONDS) {
        throw new Error(`no message yet for channel id ${data.provider_message_id}; will retry`);
      }
      this.logger.debug({ eventId: event.id, type: event.type }, 'status event for an unknown message: ignored');
      return;
    }
    if (status === 'SENT' && data.provider_message_id) {
      await this.messages.setProviderId(message.id, data.provider_message_id);
    }
    const occurredAt = typeof data.timestamp === 'number' ? Math.floor(data.timestamp) : event.created_at;
    await this.messages.recordEvent(message.id, status, occurredAt);
    const failure = status === 'FAILED' ? { code: data.error?.code ?? null, reason: data.error?.title ?? null } : null;
    await this.messages.advance(message.id, status, failure);
    // A read receipt implies delivery: either one captures the charge (once).
    if (status === 'DELIVERED' || status === 'READ') {
      if (await this.balances.capture(message.id)) {
        this.logger.log({ messageId: message.id }, 'charge captured');
      }
    } else if (status === 'FAILED') {
      if (await this.balances.release(message.id)) {
        this.logger.log({ messageId: message.id }, 'hold released');
      }
    }
  }

  /** By our id when the channel echoed it, else by the channel's id. */
  private async find(data: Partial<MessageStatusData>): Promise<MessageEntity | null> {
    if (typeof data.message_id === 'string' && data.message_id.length <= 64) {
      const byId = await this.messages.findById(data.message_id);
      if (byId) return byId;
    }
    if (typeof data.provider_message_id === 'string' && data.provider_message_id) {
      return this.messages.findByProviderId(data.provider_message_id);
    }
    return null;
  }
}
