import { callbackEventId, Channel, EventEnvelope, MessageReceivedData, unixSeconds } from '@app/contracts';

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
