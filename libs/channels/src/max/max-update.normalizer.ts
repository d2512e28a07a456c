import type { Update } from '@maxhub/max-bot-api/types';
import { EventEnvelope, InboundContent, MessageReceivedData } from '@app/contracts';
import { botReceived, botSender, receivedEvent, vcardOf } from '../bots/bot-inbound';

/** The update types a connected bot's subscription asks MAX for. */
export const MAX_UPDATE_TYPES = ['message_created', 'message_edited', 'message_callback'] as const;

type Obj = Record<string, unknown>;
type MaxMessage = Extract<Update, { update_type: 'message_created' }>['message'];

const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

const MEDIA: Record<string, InboundContent['type']> = {
  image: 'image',
  video: 'video',
  audio: 'audio',
  file: 'document',
  sticker: 'sticker',
};

/**
 * What a MAX message holds: its text, or its first attachment (image, video, audio, file, sticker,
 * location, contact) with the text as caption; the inline keyboard a bot sent is not content.
 * A media handle is the attachment's URL (or its token when there is no URL).
 */
export function maxContentOf(body: { text?: string | null; attachments?: unknown[] | null }): InboundContent {
  const text = body.text ?? null;
  const first = (body.attachments ?? []).map(obj).find((a) => a.type !== 'inline_keyboard');
  if (!first) return { type: text !== null ? 'text' : 'unsupported', text };
  const type = String(first.type);
  const payload = obj(first.payload);
  const mediaType = Object.hasOwn(MEDIA, type) ? MEDIA[type] : undefined;
  const handle = str(payload.url) ?? str(payload.token) ?? str(payload.code);
  if (mediaType && handle) {
    return {
      type: mediaType,
      text,
      media: { handle, mime_type: null, file_name: str(first.filename), size: num(first.size) },
    };
  }
  if (type === 'location') {
    const latitude = num(first.latitude);
    const longitude = num(first.longitude);
    if (latitude !== null && longitude !== null) {
      return { type: 'location', text, location: { latitude, longitude, name: null, address: null } };
    }
  }
  if (type === 'contact') {
    const card = vcardOf(str(payload.vcf_info));
    const name = card.name ?? str(obj(payload.max_info).name) ?? card.phones[0] ?? '';
    return { type: 'contacts', text, contacts: [{ name, phones: card.phones }] };
  }
  return { type: text !== null ? 'text' : 'unsupported', text };
}

/** The text of the callback button whose payload came back, in the message it was pressed on. */
function buttonTitle(message: MaxMessage | null | undefined, payload: string | undefined): string | null {
  for (const a of message?.body.attachments ?? []) {
    if (a.type !== 'inline_keyboard') continue;
    for (const row of a.payload.buttons) {
      for (const b of row) if ('payload' in b && b.payload === payload) return b.text;
    }
  }
  return null;
}

/** The dialog a message is in: where the bot's typing and read actions go (a group's chat is not one). */
const dialogOf = (m: MaxMessage | null | undefined): string | null =>
  m?.recipient?.chat_type === 'dialog' && m.recipient.chat_id !== null && m.recipient.chat_id !== undefined
    ? String(m.recipient.chat_id)
    : null;

/** The message a MAX message answers (its `link` of type `reply`). */
const repliedTo = (m: MaxMessage): string | null => (m.link?.type === 'reply' ? (m.link.message?.mid ?? null) : null);

/**
 * A MAX update as `message.received`: `message_created` (text or an attachment), `message_edited`
 * (`edit`, its new text) and `message_callback` (`reply` kind `button`, with the message it was
 * pressed on as `context_message_id`). MAX updates carry no update id, so the event id comes from
 * the message id (an edit: with its time) or the callback id: a repeat is one event. Other update
 * types are not events: null. MAX timestamps are milliseconds. `chat_id` names the dialog (MAX's
 * chat of the bot and the user, not the user id), where typing and read actions go.
 */
export function normalizeMaxUpdate(
  update: Update,
  connectionId: string,
  now: Date,
): EventEnvelope<MessageReceivedData> | null {
  if (update?.update_type === 'message_created' || update?.update_type === 'message_edited') {
    const m = update.message;
    const sender = m.sender;
    if (!sender) return null;
    const edited = update.update_type === 'message_edited';
    const content = maxContentOf(m.body);
    const providerId = edited ? `${m.body.mid}:edit:${update.timestamp}` : m.body.mid;
    return receivedEvent(
      'max',
      providerId,
      botReceived({
        connection_id: connectionId,
        from: String(sender.user_id),
        profile_name: sender.name || null,
        provider_message_id: providerId,
        content: edited
          ? { type: 'edit', text: content.text, edit: { target_provider_message_id: m.body.mid } }
          : content,
        sender: botSender(sender.user_id, sender.username),
        context_provider_message_id: repliedTo(m),
        chat_id: dialogOf(m),
        timestamp: Math.floor((edited ? update.timestamp : m.timestamp) / 1000),
      }),
      now,
    );
  }
  if (update?.update_type === 'message_callback') {
    const c = update.callback;
    const pressedOn = update.message?.body.mid ?? null;
    const title = buttonTitle(update.message, c.payload) ?? c.payload ?? null;
    return receivedEvent(
      'max',
      c.callback_id,
      botReceived({
        connection_id: connectionId,
        from: String(c.user.user_id),
        profile_name: c.user.name || null,
        provider_message_id: c.callback_id,
        content: {
          type: 'reply',
          text: title,
          reply: {
            kind: 'button',
            id: c.payload ?? null,
            title,
            payload: c.payload ?? null,
            context_message_id: pressedOn,
          },
        },
        sender: botSender(c.user.user_id, c.user.username),
        context_provider_message_id: pressedOn,
        chat_id: dialogOf(update.message),
        timestamp: Math.floor(c.timestamp / 1000),
      }),
      now,
    );
  }
  return null;
}
