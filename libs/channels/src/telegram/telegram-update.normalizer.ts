import type { Update } from '@grammyjs/types';
import { EventEnvelope, MessageReceivedData, unixSeconds } from '@app/contracts';
import { receivedEvent } from '../bots/bot-inbound';

/**
 * A Telegram update as `message.received`: a text, photo, video or document message, or a button
 * press (`type: "button"`, the button's callback data as text). The event id comes from the
 * connection and `update_id`, so the same update delivered twice is one event. Other updates
 * (edits, member changes, ...) are not events: null.
 */
export function normalizeTelegramUpdate(
  update: Update,
  connectionId: string,
  now: Date,
): EventEnvelope<MessageReceivedData> | null {
  if (typeof update?.update_id !== 'number') return null;
  const key = String(update.update_id);
  const m = update.message;
  if (m) {
    const name = [m.from?.first_name, m.from?.last_name].filter(Boolean).join(' ');
    const type =
      m.text !== undefined
        ? 'text'
        : m.photo
          ? 'image'
          : m.video
            ? 'video'
            : m.document
              ? 'document'
              : m.voice || m.audio
                ? 'audio'
                : 'unknown';
    return receivedEvent(
      'telegram',
      key,
      {
        connection_id: connectionId,
        from: String(m.chat.id),
        profile_name: name || null,
        provider_message_id: `${m.chat.id}:${m.message_id}`,
        type,
        text: m.text ?? m.caption ?? null,
        timestamp: m.date,
      },
      now,
    );
  }
  const q = update.callback_query;
  if (q) {
    const name = [q.from.first_name, q.from.last_name].filter(Boolean).join(' ');
    return receivedEvent(
      'telegram',
      key,
      {
        connection_id: connectionId,
        from: String(q.message?.chat.id ?? q.from.id),
        profile_name: name || null,
        provider_message_id: `callback:${q.id}`,
        type: 'button',
        text: q.data ?? null,
        timestamp: unixSeconds(now),
      },
      now,
    );
  }
  return null;
}
