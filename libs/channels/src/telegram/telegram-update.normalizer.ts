import type { InlineKeyboardButton, Message, ReactionType, Update } from '@grammyjs/types';
import { EventEnvelope, InboundContent, InboundMedia, MessageReceivedData, unixSeconds } from '@app/contracts';
import { botReceived, botSender, receivedEvent, vcardOf } from '../bots/bot-inbound';

/** The updates a connected bot's webhook asks Telegram for (setWebhook's `allowed_updates`). */
export const TELEGRAM_ALLOWED_UPDATES = ['message', 'edited_message', 'callback_query', 'message_reaction'] as const;

type FileLike = { file_id: string; mime_type?: string; file_name?: string; file_size?: number };

const media = (f: FileLike): InboundMedia => ({
  handle: f.file_id,
  mime_type: f.mime_type ?? null,
  file_name: f.file_name ?? null,
  size: f.file_size ?? null,
});

const messageId = (chatId: number, id: number) => `${chatId}:${id}`;
const nameOf = (u?: { first_name?: string; last_name?: string }) =>
  [u?.first_name, u?.last_name].filter(Boolean).join(' ') || null;

/**
 * What a Telegram message holds: text, photo (the largest size's file_id), video (and video notes
 * and animations), audio, voice, document, sticker, location, venue, contact; anything else is
 * `unsupported` with its caption. The caption is the text of media.
 */
export function telegramContentOf(m: Message): InboundContent {
  const caption = m.caption ?? null;
  if (m.text !== undefined) return { type: 'text', text: m.text };
  if (m.photo?.length) {
    const largest = m.photo.reduce((a, b) => (b.width * b.height > a.width * a.height ? b : a));
    return { type: 'image', text: caption, media: { ...media(largest), mime_type: 'image/jpeg' } };
  }
  if (m.sticker) return { type: 'sticker', text: m.sticker.emoji ?? null, media: media(m.sticker) };
  const video = m.video ?? m.video_note ?? m.animation;
  if (video) return { type: 'video', text: caption, media: media(video) };
  if (m.voice) return { type: 'voice', text: caption, media: media(m.voice) };
  if (m.audio) return { type: 'audio', text: caption, media: media(m.audio) };
  if (m.document) return { type: 'document', text: caption, media: media(m.document) };
  const venue = m.venue;
  const location = venue?.location ?? m.location;
  if (location) {
    const name = venue?.title ?? null;
    return {
      type: 'location',
      text: name,
      location: { latitude: location.latitude, longitude: location.longitude, name, address: venue?.address ?? null },
    };
  }
  if (m.contact) {
    const card = vcardOf(m.contact.vcard);
    const phones = [...new Set([m.contact.phone_number, ...card.phones].filter(Boolean))];
    const name = nameOf(m.contact) ?? card.name ?? phones[0] ?? '';
    return { type: 'contacts', text: null, contacts: [{ name, phones }] };
  }
  return { type: 'unsupported', text: caption };
}

/** The emoji a reaction set (the first plain emoji), or null when it was taken back or is custom. */
function emojiOf(reactions: ReactionType[]): string | null {
  for (const r of reactions) if (r.type === 'emoji') return r.emoji;
  return null;
}

/** The text of the inline button a press came from, found by its callback data. */
function buttonTitle(message: Message | undefined, data: string | undefined): string | null {
  const rows = (message?.reply_markup?.inline_keyboard ?? []) as InlineKeyboardButton[][];
  for (const row of rows) {
    for (const b of row) if ('callback_data' in b && b.callback_data === data) return b.text;
  }
  return null;
}

/**
 * A Telegram update as `message.received`: a message of any kind, an edited message (`edit`), a
 * reaction (`reaction`) and a button press (`reply` kind `button`, with the message it was pressed
 * on as `context_message_id`). The event id comes from the connection and `update_id`, so the
 * same update delivered twice is one event. Other updates (member changes, ...) are not events:
 * null. Provider message ids are `<chat id>:<message id>`.
 */
export function normalizeTelegramUpdate(
  update: Update,
  connectionId: string,
  now: Date,
): EventEnvelope<MessageReceivedData> | null {
  if (typeof update?.update_id !== 'number') return null;
  const key = String(update.update_id);
  const event = (data: MessageReceivedData) => receivedEvent('telegram', key, data, now);
  const m = update.message ?? update.edited_message;
  if (m) {
    const content = telegramContentOf(m);
    const edited = !update.message;
    const reply = m.reply_to_message;
    return event(
      botReceived({
        connection_id: connectionId,
        from: String(m.chat.id),
        profile_name: nameOf(m.from),
        provider_message_id: edited
          ? `${messageId(m.chat.id, m.message_id)}:edit:${m.edit_date ?? key}`
          : messageId(m.chat.id, m.message_id),
        content: edited
          ? {
              type: 'edit',
              text: content.text,
              edit: { target_provider_message_id: messageId(m.chat.id, m.message_id) },
            }
          : content,
        sender: botSender(m.from?.id ?? m.chat.id, m.from?.username),
        context_provider_message_id: reply ? messageId(m.chat.id, reply.message_id) : null,
        timestamp: m.edit_date ?? m.date,
      }),
    );
  }
  const r = update.message_reaction;
  if (r) {
    const target = messageId(r.chat.id, r.message_id);
    return event(
      botReceived({
        connection_id: connectionId,
        from: String(r.chat.id),
        profile_name: nameOf(r.user),
        provider_message_id: `reaction:${key}`,
        content: {
          type: 'reaction',
          text: null,
          reaction: { emoji: emojiOf(r.new_reaction), target_provider_message_id: target },
        },
        sender: botSender(r.user?.id ?? r.chat.id, r.user?.username),
        context_provider_message_id: target,
        timestamp: r.date,
      }),
    );
  }
  const q = update.callback_query;
  if (q) {
    const pressedOn = q.message ? messageId(q.message.chat.id, q.message.message_id) : null;
    const title = buttonTitle(q.message as Message | undefined, q.data) ?? q.data ?? null;
    return event(
      botReceived({
        connection_id: connectionId,
        from: String(q.message?.chat.id ?? q.from.id),
        profile_name: nameOf(q.from),
        provider_message_id: `callback:${q.id}`,
        content: {
          type: 'reply',
          text: title,
          reply: { kind: 'button', id: q.data ?? null, title, payload: q.data ?? null, context_message_id: pressedOn },
        },
        sender: botSender(q.from.id, q.from.username),
        context_provider_message_id: pressedOn,
        timestamp: unixSeconds(now),
      }),
    );
  }
  return null;
}
