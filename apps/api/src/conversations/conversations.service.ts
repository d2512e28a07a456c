import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { EventEnvelope, MessageReceivedData, ServiceWindow, WHATSAPP_SERVICE_WINDOW_SECONDS } from '@app/contracts';
import { Clock } from '@app/server';
import { EventHandlersRegistry } from '../events';
import { ConversationsRepository } from './conversations.repository';

/** How long a recipient's inbound message lets the business answer with free-form messages. */
export const SERVICE_WINDOW_MS = WHATSAPP_SERVICE_WINDOW_SECONDS * 1000;

/** The 24-hour customer-service window: opened and refreshed by inbound messages. */
@Injectable()
export class ConversationsService implements OnModuleInit {
  private readonly logger = new Logger(ConversationsService.name);

  constructor(
    private readonly windows: ConversationsRepository,
    private readonly registry: EventHandlersRegistry,
    private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    this.registry.on('message.received', (event) => this.onInbound(event));
  }

  /** Idempotent: the window keeps the latest inbound time it has seen. */
  async onInbound(event: EventEnvelope): Promise<void> {
    const data = event.data as Partial<MessageReceivedData>;
    if (typeof data.connection_id !== 'string' || typeof data.from !== 'string') {
      this.logger.warn({ eventId: event.id }, 'message.received without connection_id or from: ignored');
      return;
    }
    const recipient = data.from.replace(/^\+/, '');
    const seconds = typeof data.timestamp === 'number' ? data.timestamp : event.created_at;
    // A sender's clock far in the future must not hold the window open: never beyond now.
    const at = new Date(Math.min(seconds * 1000, this.clock.nowMs()));
    for (const appId of await this.windows.appIdsForConnection(data.connection_id)) {
      await this.windows.touch(appId, recipient, at);
    }
  }

  /** Whether the recipient wrote to the app within the last 24 hours. */
  async isOpen(appId: number, recipient: string, now = this.clock.now()): Promise<boolean> {
    return windowAt(await this.windows.lastInbound(appId, recipient), now).open;
  }

  /**
   * The windows of many recipients of the app (the gateway's conversations show them), by the same
   * rule as the send check, in the order asked.
   */
  async windowsOf(appId: number, recipients: string[], now = this.clock.now()): Promise<ServiceWindow[]> {
    const last = await this.windows.lastInboundOf(appId, recipients);
    return recipients.map((recipient) => ({ recipient, ...windowAt(last.get(recipient) ?? null, now) }));
  }
}

/** The window a last inbound time makes at `now`: open for 24 hours after it. */
function windowAt(last: Date | null, now: Date): { open: boolean; expires_at: number | null } {
  if (last === null) return { open: false, expires_at: null };
  const closes = last.getTime() + SERVICE_WINDOW_MS;
  return { open: now.getTime() < closes, expires_at: Math.floor(closes / 1000) };
}
