import { JetStreamClient, PubAck } from '@nats-io/jetstream';
import { headers as natsHeaders, MsgHdrs } from '@nats-io/nats-core';
import { inSpan, messagingAttributes, SpanKind, traceHeaders, tracingEnabled } from './tracing';

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
 * With tracing on, the publish is a producer span and the message carries its `traceparent`.
 */
export async function publishDurable(
  js: JetStreamClient,
  subject: string,
  payload: unknown,
  msgId: string,
  extraHeaders: Record<string, string> = {},
  timeoutMs = 5000,
): Promise<PublishResult> {
  const publish = async (headers: Record<string, string>): Promise<PublishResult> => {
    const ack: PubAck = await js.publish(subject, encodeJson(payload), {
      msgID: msgId,
      headers: toHeaders(headers),
      timeout: timeoutMs,
    });
    return { stream: ack.stream, seq: ack.seq, duplicate: ack.duplicate };
  };
  if (!tracingEnabled()) return publish(extraHeaders);
  return inSpan(
    `send ${subject}`,
    { kind: SpanKind.PRODUCER, attributes: messagingAttributes('send', subject, msgId) },
    () => publish({ ...extraHeaders, ...traceHeaders() }),
  );
}

export function toHeaders(h: Record<string, string>): MsgHdrs {
  const out = natsHeaders();
  for (const [k, v] of Object.entries(h)) out.set(k, v);
  return out;
}

/** How long a send may wait on the broker in all (with the rest of the request well inside 10 s): then a 503, never a hang. */
export const PUBLISH_DEADLINE_MS = 5000;

export class PublishDeadlineError extends Error {
  constructor(
    readonly attempts: number,
    readonly last: unknown,
  ) {
    super(`the broker did not acknowledge the publish within the deadline (${attempts} attempts): ${String(last)}`);
    this.name = 'PublishDeadlineError';
  }
}

/**
 * publishDurable, tried again with the same `Nats-Msg-Id` while the broker does not answer, within
 * one deadline for all attempts: each attempt's timeout is what is left of it, and the deadline
 * holds even if a publish ignored its timeout. A publish stored but whose ack was lost comes back
 * as a duplicate on the next attempt (stored once), so a rejection means the server never stored
 * it, or did not say so in time.
 */
export async function publishDurableWithin(
  js: JetStreamClient,
  subject: string,
  payload: unknown,
  msgId: string,
  opts: {
    deadlineMs?: number;
    headers?: Record<string, string>;
    onRetry?: (attempt: number, err: unknown) => void;
  } = {},
): Promise<PublishResult> {
  const deadlineMs = opts.deadlineMs ?? PUBLISH_DEADLINE_MS;
  const deadline = performance.now() + deadlineMs;
  let attempts = 0;
  let last: unknown = undefined;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new PublishDeadlineError(attempts, last)), deadlineMs);
  });
  expired.catch(() => undefined);
  const attempt = async (): Promise<PublishResult> => {
    for (;;) {
      attempts++;
      try {
        return await publishDurable(
          js,
          subject,
          payload,
          msgId,
          opts.headers,
          Math.max(1, deadline - performance.now()),
        );
      } catch (err) {
        last = err;
        const pause = 100 * attempts;
        // Not worth another attempt when it could not get an answer before the deadline.
        if (deadline - performance.now() < pause + 250) throw new PublishDeadlineError(attempts, err);
        opts.onRetry?.(attempts, err);
        await new Promise((r) => setTimeout(r, pause));
      }
    }
  };
  try {
    return await Promise.race([attempt(), expired]);
  } finally {
    clearTimeout(timer);
  }
}
