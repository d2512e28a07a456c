import type { Update } from '@maxhub/max-bot-api/types';
import { EventEnvelope, MessageReceivedData } from '@app/contracts';
import { receivedEvent } from '../bots/bot-inbound';

const ATTACHMENT_TYPE: Record<string, string> = { image: 'image', video: 'video', audio: 'audio', file: 'document' };

/**
 * A MAX update as `message.received`: `message_created` (text, or the first attachment's kind) and
 * `message_callback` (a button press: `type: "button"`, its payload as text). MAX updates carry no
 * update id, so the event id comes from the message id or the callback id: a repeat is one event.
 * Other update types are not events: null. MAX timestamps are milliseconds.
 */
export function normalizeMaxUpdate(
  update: Update,
  connectionId: string,
  now: Date,
): EventEnvelope<MessageReceivedData> | null {
  if (update?.update_type === 'message_created') {
    const m = update.message;
    const sender = m.sender;
    if (!sender) return null;
    const first = m.body.attachments?.[0]?.type;
    return receivedEvent(
      'max',
      m.body.mid,
      {
        connection_id: connectionId,
        from: String(sender.user_id),
        profile_name: sender.name || null,
        provider_message_id: m.body.mid,
        type: m.body.text || !first ? 'text' : (ATTACHMENT_TYPE[first] ?? first),
        text: m.body.text ?? null,
        timestamp: Math.floor(m.timestamp / 1000),
      },
      now,
    );
  }
  if (update?.update_type === 'message_callback') {
    const c = update.callback;
    return receivedEvent(
      'max',
      c.callback_id,
      {
        connection_id: connectionId,
        from: String(c.user.user_id),
        profile_name: c.user.name || null,
        provider_message_id: c.callback_id,
        type: 'button',
        text: c.payload ?? null,
        timestamp: Math.floor(c.timestamp / 1000),
      },
      now,
    );
  }
  return null;
}
