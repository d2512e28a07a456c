import { JetStreamClient, PubAck } from '@nats-io/jetstream';
import { headers as natsHeaders, MsgHdrs } from '@nats-io/nats-core';

export interface PublishResult {
  stream: string;
  seq: number;
  /** True when the server already had a message with this id inside the duplicate window. */
  duplicate: boolean;
}

const encoder = new TextEncoder();

export function encodeJson(payload: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(payload));
}

/**
 * Publishes to a stream with `Nats-Msg-Id` set, so a retried publish is stored once. Resolves
 * only after the server has acknowledged storing it: callers answer their clients after that.
 */
export async function publishDurable(
  js: JetStreamClient,
  subject: string,
  payload: unknown,
  msgId: string,
  extraHeaders: Record<string, string> = {},
  timeoutMs = 5000,
): Promise<PublishResult> {
  const ack: PubAck = await js.publish(subject, encodeJson(payload), {
    msgID: msgId,
    headers: toHeaders(extraHeaders),
    timeout: timeoutMs,
  });
  return { stream: ack.stream, seq: ack.seq, duplicate: ack.duplicate };
}

export function toHeaders(h: Record<string, string>): MsgHdrs {
  const out = natsHeaders();
  for (const [k, v] of Object.entries(h)) out.set(k, v);
  return out;
}
