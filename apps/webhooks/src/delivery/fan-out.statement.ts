import type { EventType } from '@app/contracts';
import type { StatusStep } from './forward-only';

/** An event ready to fan out: routing fields plus the exact body subscribers receive. */
export interface FanOutEvent {
  eventId: string;
  type: EventType;
  userId: string;
  appId: number | null;
  createdAt: Date;
  streamSeq: number;
  payload: string;
  /** Events with the same key (one message's) are delivered one after another; null: no order. */
  orderKey: string | null;
  /** The event's W3C trace context (tracing on), kept with its deliveries. */
  traceparent?: string | null;
  /** A status event's message and the rank of its status (see `fanOut`); null for any other event. */
  status: { messageId: string; rank: number } | null;
}

/** What fanning out one event did. */
export interface FannedOut {
  /** Deliveries ready to send. */
  ready: number;
  /** Held deliveries that `releaseHeld` may move at once (their endpoint is no longer parked). */
  toRelease: number;
}

export interface FanOutRow {
  event_id: string;
  n: number;
  ready: boolean;
}

/** The fan-out of a batch of events (see `fanOut`), raising the ranks of the messages it moves forward. */
export const FAN_OUT = `WITH e AS (
       SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::bigint[],
                            ARRAY(SELECT p FROM json_array_elements_text($5::json) WITH ORDINALITY AS j(p, n) ORDER BY n),
                            $6::uuid[], $7::integer[], $8::text[], $9::text[])
            WITH ORDINALITY AS e(event_id, type, created_at, stream_seq, payload, user_id, app_id, order_key, traceparent, ord)
     ), matched AS (
       SELECT e.*, s.id AS subscription_id, s.parked_until
         FROM e JOIN subscriptions s
           ON s.user_id = e.user_id
          AND s.status = 'ACTIVE'
          AND (s.events @> ARRAY['*']::text[] OR s.events @> ARRAY[e.type]::text[])
          AND (s.app_id IS NULL OR s.app_id = e.app_id)
     ), pairs AS (
       -- Does the endpoint hold new events back (parked, or held events still to release)? One
       -- probe of the held rows' key per pair: the ORDER BY keeps the planner on that key, where
       -- a bare LIMIT 1 let it scan the whole held table (every row of a dead endpoint's
       -- backlog) hoping to meet a match early, for every pair of a subscription with none.
       SELECT m.*, (m.parked_until IS NOT NULL
                    OR (SELECT true FROM held_deliveries h WHERE h.subscription_id = m.subscription_id
                         ORDER BY h.stream_seq LIMIT 1) IS NOT NULL) AS holds
         FROM matched m
     ), held AS (
       INSERT INTO held_deliveries (subscription_id, stream_seq, id, seq, event_id, event_type, event_created_at, payload, order_key, traceparent)
       SELECT p.subscription_id, p.stream_seq, gen_random_uuid(), nextval('deliveries_seq_seq'), p.event_id, p.type,
              p.created_at, p.payload, p.order_key, p.traceparent
         FROM pairs p WHERE p.holds
        ORDER BY p.ord, p.subscription_id
       ON CONFLICT (subscription_id, stream_seq) DO NOTHING
     ), created AS (
       INSERT INTO deliveries (id, subscription_id, event_id, event_type, event_created_at, stream_seq, payload, order_key, traceparent, next_attempt_at)
       SELECT gen_random_uuid(), p.subscription_id, p.event_id, p.type, p.created_at, p.stream_seq, p.payload, p.order_key, p.traceparent, now()
         FROM pairs p WHERE NOT p.holds
        ORDER BY p.ord, p.subscription_id
       ON CONFLICT (subscription_id, event_id) DO NOTHING
       RETURNING event_id
     ), raised AS (
       -- The ranks of the messages this batch moves forward (their rows are locked: see lockRanks).
       UPDATE message_status_ranks r SET rank = x.rank
         FROM unnest($10::uuid[], $11::text[], $12::smallint[]) AS x(user_id, message_id, rank)
        WHERE r.user_id = x.user_id AND r.message_id = x.message_id
     )
     SELECT event_id, count(*)::integer AS n, true AS ready FROM created GROUP BY event_id
     UNION ALL
     SELECT event_id, count(*)::integer, false FROM pairs WHERE holds AND parked_until IS NULL GROUP BY event_id`;

export function fanOutParams(events: FanOutEvent[], raised: StatusStep[]): unknown[] {
  const col = <K extends keyof FanOutEvent>(k: K) => events.map((e) => e[k]);
  return [
    col('eventId'),
    col('type'),
    col('createdAt'),
    col('streamSeq'),
    // The payloads (each the JSON of an event) as one JSON array: JSON.stringify escapes them
    // natively, where a text[] parameter is escaped character by character in JavaScript.
    JSON.stringify(col('payload')),
    col('userId'),
    col('appId'),
    col('orderKey'),
    events.map((e) => e.traceparent ?? null),
    raised.map((r) => r.userId),
    raised.map((r) => r.messageId),
    raised.map((r) => r.rank),
  ];
}

/** Each event's counts from the fan-out's rows (an event not fanned out has none). */
export function countsOf(events: FanOutEvent[]): (rows: FanOutRow[]) => FannedOut[] {
  return (rows) => {
    const count = (ready: boolean) => new Map(rows.filter((r) => r.ready === ready).map((r) => [r.event_id, r.n]));
    const [ready, toRelease] = [count(true), count(false)];
    return events.map((e) => ({ ready: ready.get(e.eventId) ?? 0, toRelease: toRelease.get(e.eventId) ?? 0 }));
  };
}
