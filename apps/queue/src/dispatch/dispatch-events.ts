import { EventEnvelope, messageStatusEventId, MessageStatusData, OutboundMessage } from '@app/contracts';

/**
 * The event id of a message's outcome, derived from the message id: a worker that publishes it
 * again after a crash produces the same id, which JetStream drops as a duplicate (Nats-Msg-Id).
 */
export function outcomeEventId(messageId: string, outcome: 'sent' | 'failed'): string {
  return messageStatusEventId(messageId, outcome === 'sent' ? 'SENT' : 'FAILED');
}

/** The envelope's data is a MessageStatusData (typed at each call through `satisfies`). */
function envelope(
  msg: OutboundMessage,
  type: 'message.sent' | 'message.failed',
  at: number,
  data: Record<string, unknown>,
): EventEnvelope {
  return {
    id: outcomeEventId(msg.id, type === 'message.sent' ? 'sent' : 'failed'),
    type,
    created_at: at,
    channel: msg.channel,
    app_id: msg.app_id ?? null,
    user_id: msg.user_id ?? null,
    data,
  };
}

/**
 * A campaign's message names its campaign in its events, and a message the api made itself (a
 * campaign's, a failover route's attempt) what its conversation shows; other messages leave them out.
 */
const campaignOf = (msg: OutboundMessage): Pick<MessageStatusData, 'campaign_id' | 'content'> => ({
  ...(msg.campaign_id ? { campaign_id: msg.campaign_id } : {}),
  ...(msg.thread_content ? { content: msg.thread_content } : {}),
});

/** `message.sent` at `nowMs` (the delivery clock): the channel accepted the message and gave it `providerMessageId`. */
export function messageSentEvent(msg: OutboundMessage, providerMessageId: string, nowMs: number): EventEnvelope {
  const at = Math.floor(nowMs / 1000);
  return envelope(msg, 'message.sent', at, {
    message_id: msg.id,
    recipient: msg.recipient,
    status: 'SENT',
    provider_message_id: providerMessageId,
    category: msg.category ?? null,
    timestamp: at,
    ...campaignOf(msg),
  } satisfies MessageStatusData);
}

/** `message.failed` at `nowMs`: the message will not be delivered; `code` and `title` say why. */
export function messageFailedEvent(
  msg: OutboundMessage,
  error: { code: string; title: string },
  nowMs: number,
): EventEnvelope {
  const at = Math.floor(nowMs / 1000);
  return envelope(msg, 'message.failed', at, {
    message_id: msg.id,
    recipient: msg.recipient,
    status: 'FAILED',
    provider_message_id: null,
    category: msg.category ?? null,
    error: { code: error.code, title: error.title, retryable: false },
    timestamp: at,
    ...campaignOf(msg),
  } satisfies MessageStatusData);
}
