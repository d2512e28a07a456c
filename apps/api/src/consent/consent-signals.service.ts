import { Injectable, OnModuleInit } from '@nestjs/common';
import {
  ConsentChange,
  EventEnvelope,
  GATEWAY_SEND_CHANNELS,
  GatewaySendChannel,
  keywordOf,
  MessageReceivedData,
  MessageStatusData,
} from '@app/contracts';
import { EventHandlersRegistry } from '../events';
import { ConsentService } from './consent.service';

/** WhatsApp's "this person has chosen to stop receiving marketing messages from the business". */
export const WHATSAPP_MARKETING_OPT_OUT = '131050';
/** The bot channels' "the person blocked the bot" (Telegram 403, MAX chat.denied), as the connectors classify it. */
export const BOT_BLOCKED = 'recipient_blocked';

const isSendChannel = (c: unknown): c is GatewaySendChannel =>
  typeof c === 'string' && (GATEWAY_SEND_CHANNELS as readonly string[]).includes(c);

/**
 * Consent from what people and channels say (docs/consent.md#sources), read from the EVENTS
 * stream: an inbound keyword (STOP, START, ... on every channel) changes marketing consent; a
 * WhatsApp 131050 failure opts the phone out of marketing; a blocked bot makes the chat unreachable
 * for all messages until the person writes to the bot again. Idempotent: a repeated event finds
 * the state already changed.
 */
@Injectable()
export class ConsentSignalsService implements OnModuleInit {
  constructor(
    private readonly consent: ConsentService,
    private readonly registry: EventHandlersRegistry,
  ) {}

  onModuleInit(): void {
    this.registry.on('message.received', (event) => this.onInbound(event));
    this.registry.on('message.failed', (event) => this.onFailed(event));
  }

  async onInbound(event: EventEnvelope): Promise<void> {
    const data = event.data as Partial<MessageReceivedData>;
    const userId = event.user_id;
    if (!userId || !isSendChannel(event.channel) || typeof data.from !== 'string' || !data.from) return;
    const at = { channel: event.channel, address: data.from };
    const changes: ConsentChange[] = [];
    // Writing to the bot again makes a chat that had blocked it reachable (only a signal's opt-out is lifted).
    const records = await this.consent.recordsOf(userId, at.channel, at.address);
    if (records.some((r) => r.purpose === 'all' && r.state === 'opted_out' && r.source === 'channel')) {
      changes.push({ ...at, purpose: 'all', state: 'unknown', source: 'channel', evidence: 'the person wrote again' });
    }
    const word = keywordOf(data.text);
    if (word) {
      const settings = await this.consent.settings(userId);
      const said = `"${String(data.text).trim()}" (message ${data.provider_message_id ?? 'unknown'})`;
      if (settings.opt_out_keywords.includes(word)) {
        changes.push({ ...at, purpose: 'marketing', state: 'opted_out', source: 'keyword', evidence: said });
      } else if (settings.opt_in_keywords.includes(word)) {
        changes.push({ ...at, purpose: 'marketing', state: 'opted_in', source: 'keyword', evidence: said });
      }
    }
    if (changes.length) await this.consent.apply(userId, changes);
  }

  async onFailed(event: EventEnvelope): Promise<void> {
    const data = event.data as Partial<MessageStatusData>;
    const userId = event.user_id;
    const code = data.error?.code;
    if (!userId || !isSendChannel(event.channel) || typeof data.recipient !== 'string' || !data.recipient) return;
    const at = { channel: event.channel, address: data.recipient };
    const evidence = `${event.channel} ${code}: ${data.error?.title ?? ''}`.trim();
    if (event.channel === 'whatsapp' && code === WHATSAPP_MARKETING_OPT_OUT) {
      await this.consent.apply(userId, [
        { ...at, purpose: 'marketing', state: 'opted_out', source: 'channel', evidence },
      ]);
    } else if (event.channel !== 'whatsapp' && code === BOT_BLOCKED) {
      await this.consent.apply(userId, [{ ...at, purpose: 'all', state: 'opted_out', source: 'channel', evidence }]);
    }
  }
}
