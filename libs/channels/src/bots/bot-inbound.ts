import {
  callbackEventId,
  Channel,
  EventEnvelope,
  InboundContent,
  InboundSender,
  MessageReceivedData,
  unixSeconds,
} from '@app/contracts';

/** A bot update turned into the one `message.received` schema, with the id that makes a repeat collapse. */
export interface BotInbound {
  event: EventEnvelope<MessageReceivedData>;
}

/** The envelope of a received bot message; app and tenant are filled in once the connection's owner is known. */
export function receivedEvent(
  channel: Channel,
  updateKey: string,
  data: MessageReceivedData,
  now: Date,
): EventEnvelope<MessageReceivedData> {
  return {
    id: callbackEventId(channel, 'received', data.connection_id, updateKey),
    type: 'message.received',
    created_at: unixSeconds(now),
    channel,
    app_id: null,
    user_id: null,
    data,
  };
}

/** A bot channel's user as the sender: its numeric id and username; bot channels give no phone. */
export function botSender(userId: number | string | null | undefined, username?: string | null): InboundSender {
  return {
    phone: null,
    user_id: userId === null || userId === undefined ? null : String(userId),
    username: username || null,
    previous_user_id: null,
  };
}

/**
 * `message.received` data of a bot update from its content: `type` and `text` repeat
 * `content.type` and `content.text` for the subscribers that read them.
 */
export function botReceived(fields: {
  connection_id: string;
  from: string;
  profile_name: string | null;
  provider_message_id: string;
  content: InboundContent;
  sender: InboundSender;
  context_provider_message_id: string | null;
  /** MAX: the dialog's chat id. */
  chat_id?: string | null;
  timestamp: number;
}): MessageReceivedData {
  return { ...fields, type: fields.content.type, text: fields.content.text };
}

/** Phone numbers (TEL lines) and the name (FN) of a vCard; MAX and Telegram share contacts as vCards. */
export function vcardOf(vcf: string | null | undefined): { name: string | null; phones: string[] } {
  const lines = typeof vcf === 'string' ? vcf.split(/\r?\n/) : [];
  const value = (line: string) => line.slice(line.indexOf(':') + 1).trim();
  const fn = lines.find((l) => /^FN[:;]/i.test(l));
  const phones = lines
    .filter((l) => /^TEL[:;]/i.test(l))
    .map(value)
    .filter(Boolean);
  return { name: fn ? value(fn) || null : null, phones };
}
