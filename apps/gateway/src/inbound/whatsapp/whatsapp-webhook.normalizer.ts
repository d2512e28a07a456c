import {
  AppSignal,
  callbackEventId,
  ChannelPricing,
  fromChannelCategory,
  isMessageCategory,
  PRICING_TYPES,
  PricingType,
  TemplateUpdatedData,
  EventEnvelope,
  EventType,
  MessageReactionData,
  MessageReceivedData,
  messageOfCallbackData,
  messageStatusEventId,
  MessageStatus,
  MessageStatusData,
  ResolveConnectionRequest,
  TemplateStatusData,
  unixSeconds,
} from '@app/contracts';
import {
  fromGraphReason,
  fromGraphTemplateStatus,
  MessagesChangeValue,
  TemplateCategoryUpdateValue,
  TemplateStatusUpdateValue,
  WebhookStatus,
} from '@app/channels';
import { accountSignalOf, isAccountSignalField } from './whatsapp-account-signals';
import { contextOf, whatsappContentOf, whatsappSenderOf } from './whatsapp-inbound-content';

/** What one webhook call amounts to. */
export interface NormalizedWebhook {
  events: EventEnvelope[];
  /** Account signals (quality, messaging limit, restriction, ban) for the api to apply to the app. */
  signals: AppSignal[];
  /** Messages of ours a status callback named (via biz_opaque_callback_data): the channel has them. */
  observed: { messageId: string; providerMessageId: string }[];
  /** Parts that were not understood (unknown change fields, malformed items), for the logs. */
  skipped: string[];
}

const STATUS: Record<string, { type: EventType; status: MessageStatus }> = {
  sent: { type: 'message.sent', status: 'SENT' },
  delivered: { type: 'message.delivered', status: 'DELIVERED' },
  read: { type: 'message.read', status: 'READ' },
  failed: { type: 'message.failed', status: 'FAILED' },
};

/**
 * The event id is derived from what the channel says, not drawn at random: a callback delivered
 * twice yields the same id, and JetStream drops the second publish (Nats-Msg-Id).
 */
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function seconds(value: string | number | undefined, fallback: number): number {
  const n = Number(value);
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : fallback;
}

/**
 * Turns a WhatsApp Business Account webhook into platform events: statuses into message.sent /
 * delivered / read / failed, inbound messages of every kind into message.received (with a typed
 * `content` and `sender`, see whatsapp-inbound-content), reactions into message.reaction as well,
 * template moderation into template.status_changed, a completed change of a template's category
 * into template.updated; account changes (quality,
 * messaging limit, restriction, ban) into app signals. App and tenant are left
 * null here: the inbound service asks the api for them (see tenantLookupOf) before publishing.
 * `now` is when the callback arrived: the events' `created_at`.
 */
export function normalizeWhatsAppWebhook(payload: unknown, now: Date): NormalizedWebhook {
  const out: NormalizedWebhook = { events: [], signals: [], observed: [], skipped: [] };
  const createdAt = unixSeconds(now);
  const envelope = <D>(id: string, type: EventType, data: D): EventEnvelope =>
    ({ id, type, created_at: createdAt, channel: 'whatsapp', app_id: null, user_id: null, data }) as EventEnvelope;

  if (!isObject(payload) || payload.object !== 'whatsapp_business_account' || !Array.isArray(payload.entry)) {
    out.skipped.push('payload is not a whatsapp_business_account webhook');
    return out;
  }
  for (const entry of payload.entry) {
    if (!isObject(entry) || !Array.isArray(entry.changes)) {
      out.skipped.push('entry without changes');
      continue;
    }
    const wabaId = typeof entry.id === 'string' && entry.id ? entry.id : null;
    for (const change of entry.changes) {
      if (!isObject(change) || !isObject(change.value)) {
        out.skipped.push('change without value');
        continue;
      }
      if (change.field === 'messages') {
        messagesChange(change.value as unknown as MessagesChangeValue, wabaId, createdAt, envelope, out);
      } else if (change.field === 'message_template_status_update' && wabaId) {
        const v = change.value as unknown as TemplateStatusUpdateValue;
        const waId = templateIdOf(v.message_template_id);
        if (typeof waId !== 'string' || typeof v.event !== 'string') {
          out.skipped.push(
            waId === UNSAFE_ID ? UNSAFE_ID_SKIPPED : 'template status update without template id or event',
          );
          continue;
        }
        const status = fromGraphTemplateStatus(v.event);
        const detail = v.rejection_info?.reason ?? v.other_info?.description ?? null;
        const reason =
          fromGraphReason(v.reason, status, detail) ??
          (status === 'FAILED'
            ? { code: v.event, message: `The template is ${v.event.toLowerCase().replace(/_/g, ' ')}.` }
            : null);
        const data: TemplateStatusData = {
          waba_id: wabaId,
          wa_id: waId,
          name: String(v.message_template_name ?? ''),
          language: String(v.message_template_language ?? ''),
          status,
          previous_status: null,
          quality: null,
          reason,
        };
        out.events.push(
          envelope(
            callbackEventId('whatsapp', 'template', data.wa_id, v.event, entry.time as number | undefined, v.reason),
            'template.status_changed',
            data,
          ),
        );
      } else if (change.field === 'template_category_update' && wabaId) {
        const data = categoryUpdate(change.value as unknown as TemplateCategoryUpdateValue, wabaId);
        if (typeof data === 'string') {
          out.skipped.push(data);
          continue;
        }
        out.events.push(
          envelope(
            callbackEventId(
              'whatsapp',
              'template_category',
              data.wa_id,
              data.previous_category,
              data.category,
              entry.time as number | undefined,
            ),
            'template.updated',
            data,
          ),
        );
      } else if (isAccountSignalField(change.field) && wabaId) {
        const signal = accountSignalOf(change.field, change.value, wabaId, entry.time, createdAt);
        if (signal) out.signals.push(signal);
        else out.skipped.push(`${change.field} ${String(change.value.event ?? '')} changes nothing`.trim());
      } else {
        out.skipped.push(`change field ${String(change.field)}`);
      }
    }
  }
  return out;
}

/** A template id sent as a JSON number past 2^53: the parse has already rounded it. */
const UNSAFE_ID = Symbol('unsafe template id');
const UNSAFE_ID_SKIPPED =
  'template id past the integers a JSON number holds exactly (the template sync reads it from Graph as a string)';

/**
 * The template a webhook names (Graph sends `message_template_id` as a JSON number): its digits, or
 * UNSAFE_ID for a number past Number.MAX_SAFE_INTEGER, whose digits the parse no longer has (it
 * would name another template, or none); null when there is none.
 */
export function templateIdOf(id: unknown): string | typeof UNSAFE_ID | null {
  if (typeof id === 'string') return /^\d+$/.test(id) ? id : null;
  if (typeof id !== 'number' || !Number.isInteger(id) || id <= 0) return null;
  return Number.isSafeInteger(id) ? String(id) : UNSAFE_ID;
}

/**
 * A completed category change as `template.updated` data, or why it changes nothing: a notice of an
 * impending change (`correct_category`: the template keeps its category until the change is made
 * and announced again) or a value without a template or category.
 */
function categoryUpdate(v: TemplateCategoryUpdateValue, wabaId: string): TemplateUpdatedData | string {
  const waId = templateIdOf(v.message_template_id);
  if (waId === UNSAFE_ID) return UNSAFE_ID_SKIPPED;
  if (waId === null || typeof v.new_category !== 'string') {
    return 'template category update without template id or new category';
  }
  if (v.correct_category !== undefined) return 'notice of an impending template category change';
  return {
    waba_id: wabaId,
    wa_id: waId,
    name: String(v.message_template_name ?? ''),
    language: String(v.message_template_language ?? ''),
    template_id: null,
    previous_category: typeof v.previous_category === 'string' ? fromChannelCategory(v.previous_category) : null,
    category: fromChannelCategory(v.new_category),
    reason: 'channel_recategorized',
  };
}

/**
 * The `pricing` of a status callback in the platform's words, or null when there is none (older API
 * versions) or it names no category. A category the platform does not know stays as the channel
 * gave it (`channel_category`) with `category` null: the api then charges what it held.
 */
export function pricingOf(pricing: unknown): ChannelPricing | null {
  if (!isObject(pricing) || typeof pricing.category !== 'string' || !pricing.category) return null;
  const upper = pricing.category.toUpperCase();
  const type =
    typeof pricing.type === 'string' && (PRICING_TYPES as readonly string[]).includes(pricing.type)
      ? (pricing.type as PricingType)
      : null;
  return {
    category: isMessageCategory(upper) ? upper : null,
    channel_category: pricing.category.slice(0, 64),
    type,
    billable: typeof pricing.billable === 'boolean' ? pricing.billable : null,
    pricing_model: typeof pricing.pricing_model === 'string' ? pricing.pricing_model.slice(0, 16) : null,
  };
}

function messagesChange(
  value: MessagesChangeValue,
  wabaId: string | null,
  createdAt: number,
  envelope: <D>(id: string, type: EventType, data: D) => EventEnvelope,
  out: NormalizedWebhook,
): void {
  const connectionId = value.metadata?.phone_number_id;
  if (typeof connectionId !== 'string' || !connectionId) {
    out.skipped.push('messages change without metadata.phone_number_id');
    return;
  }
  for (const s of Array.isArray(value.statuses) ? value.statuses : []) {
    const event = statusEvent(s, connectionId, wabaId, createdAt, envelope);
    if (!event) {
      out.skipped.push(`status ${String((s as Partial<WebhookStatus>)?.status)}`);
      continue;
    }
    out.events.push(event);
    const ours = messageOfCallbackData(s.biz_opaque_callback_data);
    if (ours) out.observed.push({ messageId: ours.messageId, providerMessageId: s.id });
  }
  const contacts: unknown[] = Array.isArray(value.contacts) ? value.contacts : [];
  for (const m of Array.isArray(value.messages) ? value.messages : []) {
    const raw = m as unknown;
    if (!isObject(raw) || typeof raw.id !== 'string' || !raw.id) {
      out.skipped.push('inbound message without id or sender');
      continue;
    }
    const { sender, profileName } = whatsappSenderOf(raw, contacts);
    const from = sender.phone ?? sender.user_id;
    if (!from) {
      out.skipped.push('inbound message without id or sender');
      continue;
    }
    const timestamp = seconds(m.timestamp, createdAt);
    const content = whatsappContentOf(raw);
    // A reaction stays `message.reaction` for its subscribers, and is a received message as well.
    if (content.reaction) {
      const data: MessageReactionData = {
        connection_id: connectionId,
        waba_id: wabaId,
        from,
        provider_message_id: content.reaction.target_provider_message_id,
        message_id: null,
        emoji: content.reaction.emoji ?? '',
        timestamp,
      };
      out.events.push(envelope(callbackEventId('whatsapp', 'reaction', raw.id), 'message.reaction', data));
    }
    const data: MessageReceivedData = {
      connection_id: connectionId,
      waba_id: wabaId,
      from,
      profile_name: profileName,
      provider_message_id: raw.id,
      type: content.type,
      text: content.text,
      content,
      sender,
      context_provider_message_id: contextOf(raw),
      timestamp,
    };
    out.events.push(envelope(callbackEventId('whatsapp', 'received', raw.id), 'message.received', data));
  }
}

function statusEvent(
  s: WebhookStatus,
  connectionId: string,
  wabaId: string | null,
  createdAt: number,
  envelope: <D>(id: string, type: EventType, data: D) => EventEnvelope,
): EventEnvelope | null {
  if (!isObject(s) || typeof s.id !== 'string' || !s.id) return null;
  // Own keys only: `constructor` or `toString` would find Object.prototype's.
  const kind = Object.hasOwn(STATUS, s.status) ? STATUS[s.status] : undefined;
  if (!kind) return null; // played, deleted: no delivery state change
  const ours = messageOfCallbackData(s.biz_opaque_callback_data);
  const err = Array.isArray(s.errors) ? s.errors[0] : undefined;
  const data: MessageStatusData = {
    message_id: ours ? ours.messageId : s.id,
    // A recipient known only by its business-scoped user id has no phone: the id stands in.
    recipient: String(s.recipient_id || s.recipient_user_id || ''),
    status: kind.status,
    provider_message_id: s.id,
    connection_id: connectionId,
    waba_id: wabaId,
    category: s.pricing?.category ? s.pricing.category.toUpperCase() : null,
    pricing: pricingOf(s.pricing),
    error:
      kind.status === 'FAILED'
        ? {
            code: err ? String(err.code) : 'unknown',
            title: err?.error_data?.details || err?.title || err?.message || 'The channel reported the message failed',
            retryable: false,
          }
        : null,
    ...(ours?.campaignId ? { campaign_id: ours.campaignId } : {}),
    timestamp: seconds(s.timestamp, createdAt),
  };
  // A status of one of our messages shares its id with the queue's report of the same step, so
  // `sent` (told by the queue and by this callback) is stored, and sent to subscribers, once.
  const id = ours
    ? messageStatusEventId(data.message_id, kind.status)
    : callbackEventId('whatsapp', 'status', s.id, s.status);
  return envelope(id, kind.type, data);
}

/**
 * Which connection names the tenant of an event: the number (phone_number_id) for statuses and
 * inbound messages, the business account (WABA, the entry id) for template moderation. Null for
 * an event that names neither.
 */
export function tenantLookupOf(event: EventEnvelope): ResolveConnectionRequest | null {
  const data = event.data as { connection_id?: unknown; waba_id?: unknown };
  if (event.type === 'template.status_changed' || event.type === 'template.updated') {
    return typeof data.waba_id === 'string' && data.waba_id ? { channel: 'whatsapp', waba_id: data.waba_id } : null;
  }
  return typeof data.connection_id === 'string' && data.connection_id
    ? { channel: 'whatsapp', phone_number_id: data.connection_id }
    : null;
}
