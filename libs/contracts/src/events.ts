import { Channel, ChannelPricing } from './channels';
import type { ConversationContent } from './conversations';

/** Every event type the platform publishes to the EVENTS stream and to webhook subscribers. */
export const EVENT_TYPES = [
  'message.sent',
  'message.delivered',
  'message.read',
  'message.failed',
  'message.received',
  'message.reaction',
  'message.clicked',
  'template.status_changed',
  'template.updated',
  'app.updated',
  'endpoint.disabled',
  'contact.opted_out',
  'contact.opted_in',
  'campaign.started',
  'campaign.paused',
  'campaign.resumed',
  'campaign.cancelled',
  'campaign.completed',
  'conversation.message.created',
  'conversation.assigned',
  'conversation.status_changed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export function isEventType(value: unknown): value is EventType {
  return typeof value === 'string' && (EVENT_TYPES as readonly string[]).includes(value);
}

/** Delivery states of one message; they only move forward (docs/decisions.md, Message lifecycle). */
export const MESSAGE_STATUSES = ['QUEUED', 'SENT', 'DELIVERED', 'READ', 'FAILED'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/**
 * A status's place in the lifecycle: QUEUED 0, SENT 1, DELIVERED 2, READ and FAILED 3 (both final).
 * A status moves a message forward only when it ranks above the message's current one.
 */
const RANK: Record<MessageStatus, number> = { QUEUED: 0, SENT: 1, DELIVERED: 2, READ: 3, FAILED: 3 };

export function statusRank(status: MessageStatus): number {
  return RANK[status];
}

/** True when moving from `current` to `next` is a step forward (FAILED and READ are final). */
export function advancesStatus(current: MessageStatus, next: MessageStatus): boolean {
  return RANK[next] > RANK[current];
}

/** The status each status event reports; other event types report none. */
export const STATUS_OF_EVENT: Partial<Record<EventType, MessageStatus>> = {
  'message.sent': 'SENT',
  'message.delivered': 'DELIVERED',
  'message.read': 'READ',
  'message.failed': 'FAILED',
};

/** One envelope for every channel (docs/webhooks.md, The event envelope). */
export interface EventEnvelope<D = Record<string, unknown>> {
  /** `evt_` + UUID v7; also the JetStream Nats-Msg-Id and the webhook-id. */
  id: string;
  type: EventType;
  /** Unix seconds. */
  created_at: number;
  channel: Channel | null;
  app_id: number | null;
  /** The tenant (user) the event belongs to; used for routing, stripped from webhook bodies. */
  user_id?: string | null;
  data: D;
}

export interface MessageStatusData {
  message_id: string;
  recipient: string;
  status: MessageStatus;
  provider_message_id?: string | null;
  /**
   * The sending connection (WhatsApp phone_number_id) and its business account, when the event
   * comes from a channel callback: the gateway does not know our message ids, so the consumer maps
   * `provider_message_id` (and this connection) to its message.
   */
  connection_id?: string | null;
  waba_id?: string | null;
  category?: string | null;
  /**
   * What the channel billed for the message, when the callback says (WhatsApp's `pricing`): the
   * api captures the hold at this category's price, or at 0 when the message was free.
   */
  pricing?: ChannelPricing | null;
  error?: { code: string; title: string; retryable?: boolean } | null;
  /** The campaign the message belongs to (docs/campaigns.md); absent for other sends. */
  campaign_id?: string | null;
  /**
   * What a campaign's message or a failover route's attempt sent, as its conversation shows it
   * (docs/conversations.md): on its `message.sent` and `message.failed`; absent for other sends.
   */
  content?: ConversationContent | null;
  /** Unix seconds at which the channel observed the transition. */
  timestamp: number;
}
