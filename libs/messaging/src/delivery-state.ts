import { JetStreamApiCodes, JetStreamApiError, JetStreamClient } from '@nats-io/jetstream';
import { KV, Kvm } from '@nats-io/kv';
import { KV_BUCKETS, Topology } from '@app/contracts';

/**
 * What is known about one outbound message's hand-over to its channel. The queue writes `sending`
 * before calling the channel and `sent` after the channel accepted it; the gateway writes
 * `observed` when a provider callback names the message (WhatsApp echoes `biz_opaque_callback_data`,
 * which carries our message id). A redelivered message is resolved from this state, so a message
 * the channel already accepted is not sent a second time.
 *
 * Stored in the `delivery_state` Key-Value bucket (Topology.kvBucket), key = the message id, value
 * = `<status>:<detail>` as plain text:
 *
 * | value                          | written by | meaning                                              |
 * |--------------------------------|------------|------------------------------------------------------|
 * | `sending:<unix ms>`            | queue      | a channel call started then; outcome not yet known   |
 * | `sent:<provider_message_id>`   | queue      | the channel accepted it                              |
 * | `observed:<provider_message_id>` | gateway  | a provider callback for it arrived: it was sent      |
 * | `rejected:<code>`              | queue      | the channel refused it; nothing was sent (retryable) |
 * | `failed:<code> <title>`        | queue      | given up for good; message.failed was published      |
 * | `withdrawn:<code>`             | api        | no longer to be sent; the channel is never called    |
 */
export type DeliveryState =
  | { status: 'sending'; since: number }
  | { status: 'sent'; providerMessageId: string }
  | { status: 'observed'; providerMessageId: string }
  | { status: 'rejected'; code: string }
  | { status: 'failed'; code: string; title: string }
  | { status: 'withdrawn'; code: string };

/** The state with the bucket revision it was read at (0 when the key has no value). */
export interface DeliveryStateEntry {
  state: DeliveryState | null;
  revision: number;
}

/** Keys are kept for a week: far longer than any message stays on an outbound stream. */
export const DELIVERY_STATE_TTL_MS = 7 * 24 * 60 * 60 * 1000;

const KEY_RE = /^[-_=A-Za-z0-9]{1,200}$/;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The bucket of a topology: `delivery_state` under its prefix. */
export function deliveryStateBucket(t: Topology): string {
  return t.kvBucket(KV_BUCKETS.deliveryState);
}

/** The key of one message (its id; ids are UUIDs, so they are valid keys as they are). */
export function deliveryStateKey(messageId: string): string {
  if (!KEY_RE.test(messageId)) throw new Error(`message id "${messageId}" cannot be a delivery state key`);
  return messageId;
}

export function encodeDeliveryState(s: DeliveryState): string {
  switch (s.status) {
    case 'sending':
      return `sending:${s.since}`;
    case 'sent':
    case 'observed':
      return `${s.status}:${s.providerMessageId}`;
    case 'rejected':
    case 'withdrawn':
      return `${s.status}:${s.code}`;
    case 'failed':
      return `failed:${s.code} ${s.title}`.replace(/[\r\n]+/g, ' ').slice(0, 1024);
  }
}

/** Parses a stored value; null for an empty or unknown one (treated as "nothing known"). */
export function decodeDeliveryState(value: string): DeliveryState | null {
  const i = value.indexOf(':');
  if (i <= 0) return null;
  const status = value.slice(0, i);
  const detail = value.slice(i + 1);
  switch (status) {
    case 'sending': {
      const since = Number(detail);
      return Number.isFinite(since) ? { status, since } : null;
    }
    case 'sent':
    case 'observed':
      return detail ? { status, providerMessageId: detail } : null;
    case 'rejected':
    case 'withdrawn':
      return { status, code: detail };
    case 'failed': {
      const sp = detail.indexOf(' ');
      return sp < 0
        ? { status, code: detail, title: '' }
        : { status, code: detail.slice(0, sp), title: detail.slice(sp + 1) };
    }
    default:
      return null;
  }
}

/** True when the channel is known to have accepted the message. */
export function isDelivered(
  s: DeliveryState | null,
): s is Extract<DeliveryState, { status: 'sent' } | { status: 'observed' }> {
  return s?.status === 'sent' || s?.status === 'observed';
}

/** Raised by `claim` when somebody else wrote the key since it was read. */
export class DeliveryStateConflictError extends Error {
  constructor(readonly messageId: string) {
    super(`delivery state of ${messageId} changed concurrently`);
    this.name = 'DeliveryStateConflictError';
  }
}

/** Reads and writes the delivery state of messages; the one code path for queue and gateway. */
export class DeliveryStateStore {
  constructor(private readonly kv: KV) {}

  /** Binds to the existing bucket (created by the NATS setup step); fails when it is missing. */
  static async open(js: JetStreamClient, t: Topology): Promise<DeliveryStateStore> {
    const kv = await new Kvm(js).open(deliveryStateBucket(t));
    await kv.status(); // binding is lazy: make a missing bucket fail here, not on the first write
    return new DeliveryStateStore(kv);
  }

  async read(messageId: string): Promise<DeliveryStateEntry> {
    const e = await this.kv.get(deliveryStateKey(messageId));
    if (!e || e.operation !== 'PUT' || e.length === 0) return { state: null, revision: e?.revision ?? 0 };
    return { state: decodeDeliveryState(decoder.decode(e.value)), revision: e.revision };
  }

  /**
   * Writes `state` only if the key is still at `revision` (0: never written or deleted), so two
   * workers holding the same message cannot both claim it. Throws DeliveryStateConflictError
   * otherwise; returns the new revision.
   */
  async claim(messageId: string, revision: number, state: DeliveryState): Promise<number> {
    const key = deliveryStateKey(messageId);
    const value = encoder.encode(encodeDeliveryState(state));
    try {
      return revision > 0 ? await this.kv.update(key, value, revision) : await this.kv.create(key, value);
    } catch (err) {
      if (isWrongSequence(err)) throw new DeliveryStateConflictError(messageId);
      throw err;
    }
  }

  /** Writes `state` unconditionally. */
  async write(messageId: string, state: DeliveryState): Promise<number> {
    return this.kv.put(deliveryStateKey(messageId), encoder.encode(encodeDeliveryState(state)));
  }

  /**
   * Tracing on: the trace context of the message's channel call, under `trace_<id>` beside its
   * state, so the provider's callbacks (separate requests that name only the message) join the
   * message's trace. Expires with the bucket's keys.
   */
  async recordTrace(messageId: string, traceparent: string): Promise<void> {
    await this.kv.put(`trace_${deliveryStateKey(messageId)}`, encoder.encode(traceparent));
  }

  /** The trace context `recordTrace` stored for the message; null when none. */
  async readTrace(messageId: string): Promise<string | null> {
    const e = await this.kv.get(`trace_${deliveryStateKey(messageId)}`);
    return e && e.operation === 'PUT' && e.length > 0 ? decoder.decode(e.value) : null;
  }

  /**
   * For the api, before it fails a message it accepted: marks it `withdrawn`, so the queue never
   * hands it to the channel. Written by compare-and-set over no state or a transient refusal only,
   * the same way the queue claims a message before its channel call, so exactly one of the two wins.
   * True when the message is withdrawn (now or before); false when a channel call started or ended
   * (`sending`, `sent`, `observed`, `failed`): the message's own events settle it.
   */
  async withdraw(messageId: string, code: string): Promise<boolean> {
    for (;;) {
      const entry = await this.read(messageId);
      if (entry.state?.status === 'withdrawn') return true;
      if (entry.state && entry.state.status !== 'rejected') return false;
      try {
        await this.claim(messageId, entry.revision, { status: 'withdrawn', code });
        return true;
      } catch (err) {
        if (!(err instanceof DeliveryStateConflictError)) throw err;
      }
    }
  }

  /** For the side that receives provider callbacks: records that the message reached the channel. */
  recordObserved(messageId: string, providerMessageId: string): Promise<number> {
    return this.write(messageId, { status: 'observed', providerMessageId });
  }
}

function isWrongSequence(err: unknown): boolean {
  return (
    err instanceof JetStreamApiError &&
    (err.code === JetStreamApiCodes.StreamWrongLastSequence ||
      err.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)
  );
}
