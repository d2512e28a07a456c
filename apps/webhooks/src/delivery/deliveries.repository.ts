import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import type { DeliveryStatus } from '@app/contracts';
import { sqlRows, statementIn, transactionCommittedByLast } from '@app/database';
import { DeliveryAttemptEntity } from './delivery-attempt.entity';
import { DeliveryEntity } from './delivery.entity';
import { applyForwardOnly, messageKeyOf, StatusStep } from './forward-only';
import { countsOf, FAN_OUT, FannedOut, FanOutEvent, fanOutParams, FanOutRow } from './fan-out.statement';

/** A delivery taken by a dispatcher, with what it needs to sign and send it. */
export interface ClaimedDelivery {
  id: string;
  subscription_id: string;
  event_id: string;
  event_type: string;
  event_created_at: Date;
  payload: string | null;
  attempts: number;
  retry_index: number;
  user_id: string;
  url: string;
  /** Sealed (see SecretCipher), with the key id that opens them. */
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  secret_key_id: string | null;
  /** The subscription is parked and this attempt is its probe. */
  probing: boolean;
  /** The W3C trace context of the event (tracing on), the parent of the attempt's span. */
  traceparent?: string | null;
}

export interface ClaimLimits {
  /** Deliveries to take at most (this process's free slots). */
  max: number;
  /** In flight at once per subscription, across dispatchers (a parked one gets 1: its probe). */
  perSubscription: number;
  /** In flight at once per tenant, across its subscriptions and dispatchers. */
  perTenant: number;
  leaseMs: number;
}

export interface AttemptRecord {
  deliveryId: string;
  subscriptionId: string;
  eventId: string;
  eventType: string;
  attempt: number;
  status: 'SUCCEEDED' | 'FAILED';
  responseStatus: number | null;
  latencyMs: number;
  responseExcerpt: string | null;
  error: string | null;
  startedAt: Date;
}

/** What one attempt did to its delivery: succeeded, failed for good, or due again at `nextAttemptAt`. */
export interface AttemptOutcome {
  record: AttemptRecord;
  status: DeliveryStatus;
  nextAttemptAt: Date | null;
}

const PENDING_AND_FREE = `d.status = 'PENDING' AND d.next_attempt_at <= now()
                AND (d.locked_until IS NULL OR d.locked_until <= now())`;
/**
 * No event of the same message fanned out earlier is still pending (in flight or waiting for a
 * retry). Fan-out order (`seq`), not stream order: one message's fan-outs take turns on its rank
 * row, so its deliveries' `seq` rises with their status's rank even when two replicas fanned out
 * a later stream position first.
 */
const FIRST_OF_ITS_KEY = `(d.order_key IS NULL OR NOT EXISTS (
                  SELECT 1 FROM deliveries e
                   WHERE e.subscription_id = d.subscription_id AND e.order_key = d.order_key
                     AND e.status = 'PENDING' AND e.seq < d.seq))`;

/** Which held deliveries to end (see `failHeld`). */
interface HeldPick {
  subs: string;
  rows?: string;
  error: string;
  params: unknown[];
}

/** Held deliveries failed per subscription and statement by housekeeping. */
const HELD_BATCH = 5000;

export type { FannedOut, FanOutEvent } from './fan-out.statement';

/** The only place that queries deliveries and delivery attempts. */
@Injectable()
export class DeliveriesRepository {
  constructor(private readonly ds: DataSource) {}

  /**
   * One delivery per matching active subscription of each event's tenant (by type or `*`, and by
   * app when the subscription has one), for a batch of events in one statement, in the batch's
   * order. A subscription whose endpoint is parked, or still has held events to release, gets a
   * held delivery instead (see `releaseHeld`). Idempotent: a redelivered event adds nothing.
   *
   * Status events are applied forward only per message: one that does not rank above every status
   * of its message fanned out before (stored in `message_status_ranks`, or earlier in the batch) is
   * not fanned out, so no subscriber is sent a status below one it may already have. The message's
   * rank is read under its row's lock and raised in the fan-out's own transaction: replicas fanning
   * out the same message's statuses at once take turns, and a crash leaves rank and deliveries
   * as they were.
   */
  async fanOut(events: FanOutEvent[]): Promise<FannedOut[]> {
    if (events.length === 0) return [];
    const steps = events.map((e): StatusStep | null => (e.status ? { userId: e.userId, ...e.status } : null));
    if (!steps.some(Boolean))
      return sqlRows<FanOutRow>(this.ds, FAN_OUT, fanOutParams(events, [])).then(countsOf(events));
    return transactionCommittedByLast(this.ds, async (em) => {
      const { advances, raised } = applyForwardOnly(steps, await this.lockRanks(em, steps));
      const fanned = events.filter((_, i) => advances[i]);
      const rows = await statementIn<FanOutRow>(em, FAN_OUT, fanOutParams(fanned, [...raised.values()]), true);
      return countsOf(events)(rows);
    });
  }

  /**
   * The rank fanned out so far of each message the steps name, its row locked until the
   * transaction ends (created at rank 0, nothing fanned out, when the message is new). Locked in
   * key order, so batches that share messages never wait on each other in a circle.
   */
  private async lockRanks(em: EntityManager, steps: (StatusStep | null)[]): Promise<Map<string, number>> {
    const named = [...new Map(steps.filter((s) => s !== null).map((s) => [messageKeyOf(s), s])).values()];
    const rows = await statementIn<{ user_id: string; message_id: string; rank: number }>(
      em,
      `INSERT INTO message_status_ranks (user_id, message_id, rank)
       SELECT user_id, message_id, 0 FROM unnest($1::uuid[], $2::text[]) AS m(user_id, message_id)
        ORDER BY user_id, message_id
       ON CONFLICT (user_id, message_id) DO UPDATE SET rank = message_status_ranks.rank
       RETURNING user_id, message_id, rank`,
      [named.map((s) => s.userId), named.map((s) => s.messageId)],
    );
    return new Map(
      rows.map((r) => [messageKeyOf({ userId: r.user_id, messageId: r.message_id, rank: r.rank }), r.rank]),
    );
  }

  /**
   * Moves held deliveries into the line, oldest event first, keeping their ids and order: up to
   * `perSubscription` of each subscription whose endpoint is no longer parked, and the oldest one
   * of a parked subscription whose probe is due and has no event in line that was never tried
   * (what a probe prefers). Returns how many moved; call again while it moves any.
   */
  releaseHeld(perSubscription: number): Promise<number> {
    return this.moveHeld(
      this.ds,
      `SELECT h.subscription_id, h.stream_seq, NULL::text AS error
         FROM subscriptions s
         CROSS JOIN LATERAL (
           SELECT h.subscription_id, h.stream_seq FROM held_deliveries h
            WHERE h.subscription_id = s.id
            ORDER BY h.stream_seq
            LIMIT CASE WHEN s.parked_until IS NULL THEN $1::integer ELSE 1 END
         ) h
        WHERE EXISTS (SELECT 1 FROM held_deliveries ORDER BY subscription_id, stream_seq LIMIT 1)
          AND s.status = 'ACTIVE'
          AND (s.parked_until IS NULL
               OR (s.parked_until <= now()
                   -- Per subscription, by the pending deliveries' key (see the fan-out's probe).
                   AND (SELECT true FROM deliveries d
                         WHERE d.subscription_id = s.id AND d.status = 'PENDING' AND d.retry_index = 0
                         ORDER BY d.stream_seq, d.seq LIMIT 1) IS NULL))`,
      [perSubscription],
      'PENDING',
    );
  }

  /**
   * Ends held deliveries as FAILED deliveries (resendable): of the subscriptions `pick.subs`
   * selects (over `s`), the oldest `perSubscription` held rows of each, those of them that
   * `pick.rows` keeps (over `h`), with `pick.error` (an SQL expression over both) as the reason.
   * Each subscription's held rows are read in stream order from the first, by its key, so a long
   * backlog costs only the rows taken. Parameters start at $2.
   */
  private failHeld(q: DataSource | EntityManager, pick: HeldPick, perSubscription: number): Promise<number> {
    return this.moveHeld(
      q,
      `SELECT h.subscription_id, h.stream_seq, (${pick.error}) AS error
         FROM subscriptions s
         CROSS JOIN LATERAL (
           SELECT h.* FROM held_deliveries h
            WHERE h.subscription_id = s.id
            ORDER BY h.stream_seq
            LIMIT $1
         ) h
        WHERE ${pick.subs} AND ${pick.rows ?? 'true'}`,
      [perSubscription, ...pick.params],
      'FAILED',
    );
  }

  /**
   * Turns the held rows that `picked` selects (subscription_id, stream_seq, error) into deliveries
   * with their ids, order and first-seen time: pending and due now, or failed with the error.
   */
  private async moveHeld(
    q: DataSource | EntityManager,
    picked: string,
    params: unknown[],
    status: 'PENDING' | 'FAILED',
  ): Promise<number> {
    const [due, finished] = status === 'PENDING' ? ['now()', 'NULL'] : ['NULL', 'now()'];
    const rows = await sqlRows<{ n: number }>(
      q,
      `WITH picked AS (${picked}
       ), moved AS (
         DELETE FROM held_deliveries h USING picked
          WHERE h.subscription_id = picked.subscription_id AND h.stream_seq = picked.stream_seq
         RETURNING h.*, picked.error
       ), created AS (
         INSERT INTO deliveries (id, seq, subscription_id, event_id, event_type, event_created_at, stream_seq, payload,
                                 order_key, traceparent, status, next_attempt_at, finished_at, last_error, created_at)
         SELECT id, seq, subscription_id, event_id, event_type, event_created_at, stream_seq, payload, order_key,
                traceparent, '${status}', ${due}, ${finished}, error, created_at
           FROM moved ORDER BY subscription_id, stream_seq
         ON CONFLICT DO NOTHING
         RETURNING 1
       )
       SELECT (SELECT count(*) FROM moved)::integer AS n`,
      params,
    );
    return rows[0]?.n ?? 0;
  }

  /** `failHeld` in batches until it takes nothing more. */
  private async failAllHeld(pick: HeldPick): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.failHeld(this.ds, pick, HELD_BATCH);
      if (n === 0) return total;
      total += n;
    }
  }

  /** A delivery to one subscription outside the stream (test events): it goes ahead of the rest. */
  async insertOne(
    subscriptionId: string,
    e: Omit<FanOutEvent, 'userId' | 'appId' | 'streamSeq' | 'orderKey' | 'status'>,
  ): Promise<string> {
    const id = uuidv7();
    await sqlRows(
      this.ds,
      `INSERT INTO deliveries (id, subscription_id, event_id, event_type, event_created_at, stream_seq, payload, next_attempt_at)
       VALUES ($1, $2, $3, $4, $5, 0, $6, now())`,
      [id, subscriptionId, e.eventId, e.type, e.createdAt, e.payload],
    );
    return id;
  }

  /**
   * Takes due deliveries for sending, at most `max`, within the window of each subscription (one
   * at a time until its endpoint has answered well) and the limit of each tenant (counting what
   * other dispatchers hold). Each subscription's oldest events
   * go first; an event waits while an earlier event of the same message is pending. A parked
   * subscription gets nothing before `parked_until`, then one probe, preferring an event never
   * tried (so one event the endpoint rejects does not keep the rest parked). Subscriptions are
   * locked while choosing, so concurrent dispatchers never pass the limits together; a taken
   * delivery is leased for `leaseMs`, after which a crashed holder's work is taken again.
   */
  async claim(limits: ClaimLimits): Promise<ClaimedDelivery[]> {
    // One statement: its row locks last exactly as long as the choosing does.
    const rows = await sqlRows<ClaimedDelivery & { stream_seq: string; seq: string }>(
      this.ds,
      `WITH busy AS (
         -- In flight per active subscription (leased and not settled; a disabled one's last
         -- attempts end within their lease). Each count is an index range scan over leases that
         -- have not expired, so the entries of deliveries settled since the last vacuum are passed
         -- over once (and marked dead), not reread by every claim as a bitmap scan of the whole
         -- lease index would.
         SELECT s.id AS subscription_id, s.user_id, held.n
           FROM subscriptions s
           CROSS JOIN LATERAL (
             SELECT count(*) AS n FROM (
               SELECT 1 FROM deliveries b
                WHERE b.subscription_id = s.id AND b.status = 'PENDING'
                  AND b.locked_until IS NOT NULL AND b.locked_until > now()
                LIMIT GREATEST($2::integer, $3::integer)
             ) leased
           ) held
          WHERE s.status = 'ACTIVE'
       ), tenant_busy AS (
         SELECT busy.user_id, sum(busy.n) AS n FROM busy GROUP BY busy.user_id
       ), subs AS (
         -- Subscriptions and tenants already at their limit are left out here, so they never
         -- take the places of others that have room.
         SELECT s.id, s.user_id, (s.parked_until IS NOT NULL) AS probing,
                LEAST(CASE WHEN s.window_open AND s.parked_until IS NULL THEN $2 ELSE 1 END - COALESCE(busy.n, 0),
                      $3 - COALESCE(tb.n, 0)) AS room,
                $3 - COALESCE(tb.n, 0) AS tenant_room
           FROM subscriptions s
           LEFT JOIN busy ON busy.subscription_id = s.id
           LEFT JOIN tenant_busy tb ON tb.user_id = s.user_id
           CROSS JOIN LATERAL (
             SELECT d.next_attempt_at AS at FROM deliveries d
              WHERE d.subscription_id = s.id AND ${PENDING_AND_FREE}
              ORDER BY d.next_attempt_at LIMIT 1
           ) first_due
          WHERE s.status = 'ACTIVE' AND (s.parked_until IS NULL OR s.parked_until <= now())
            AND CASE WHEN s.window_open AND s.parked_until IS NULL THEN $2 ELSE 1 END > COALESCE(busy.n, 0)
            AND $3 > COALESCE(tb.n, 0)
          ORDER BY first_due.at
          LIMIT $1
          FOR UPDATE OF s SKIP LOCKED
       ), candidates AS (
         SELECT p.id, p.stream_seq, p.seq, subs.user_id, subs.tenant_room FROM subs CROSS JOIN LATERAL (
           (SELECT d.id, d.stream_seq, d.seq FROM deliveries d
             WHERE NOT subs.probing AND d.subscription_id = subs.id AND ${PENDING_AND_FREE} AND ${FIRST_OF_ITS_KEY}
             ORDER BY d.stream_seq, d.seq
             LIMIT subs.room)
           UNION ALL
           (SELECT d.id, d.stream_seq, d.seq FROM deliveries d
             WHERE subs.probing AND d.subscription_id = subs.id AND ${PENDING_AND_FREE} AND ${FIRST_OF_ITS_KEY}
             ORDER BY d.retry_index > 0, d.stream_seq, d.seq
             LIMIT 1)
         ) p
       ), picked AS (
         SELECT ranked.id FROM (
           SELECT c.*, row_number() OVER (PARTITION BY c.user_id ORDER BY c.stream_seq, c.seq) AS n FROM candidates c
         ) ranked
          WHERE ranked.n <= ranked.tenant_room
          ORDER BY ranked.stream_seq, ranked.seq
          LIMIT $1
       )
       -- Checked again on the row as it is now: a dispatcher whose statement began before another
       -- one's claim (or settlement) of the same delivery committed waits for that row, then finds
       -- it taken and passes it over, instead of sending it a second time.
       UPDATE deliveries d
          SET locked_until = now() + make_interval(secs => $4::bigint / 1000.0)
         FROM picked, subscriptions s
        WHERE d.id = picked.id AND s.id = d.subscription_id
          AND d.status = 'PENDING' AND (d.locked_until IS NULL OR d.locked_until <= now())
       RETURNING d.id, d.subscription_id, d.event_id, d.event_type, d.event_created_at, d.payload, d.attempts,
                 d.retry_index, d.stream_seq, d.seq, s.user_id, s.url, s.secret, s.previous_secret,
                 s.previous_secret_expires_at, s.secret_key_id, (s.parked_until IS NOT NULL) AS probing, d.traceparent`,
      [limits.max, limits.perSubscription, limits.perTenant, limits.leaseMs],
    );
    return rows.sort((a, b) => Number(a.stream_seq) - Number(b.stream_seq) || Number(a.seq) - Number(b.seq));
  }

  /** Gives a delivery back untouched (this process is stopping mid-attempt). */
  async release(id: string): Promise<void> {
    await sqlRows(this.ds, `UPDATE deliveries SET locked_until = NULL WHERE id = $1`, [id]);
  }

  /**
   * Logs the attempts and settles their deliveries in one statement, whatever their number; `then`
   * may follow with more SQL over the settled rows (`settled`: their subscription ids).
   */
  private settleStatement(outcomes: AttemptOutcome[], then = 'SELECT 1'): [string, unknown[]] {
    const r = outcomes.map((o) => o.record);
    const sql = `WITH u AS (
        SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::text[], $6::integer[], $7::text[],
                             $8::integer[], $9::integer[], $10::text[], $11::text[], $12::timestamptz[],
                             $13::timestamptz[], $14::text[])
          AS u(id, delivery_id, subscription_id, event_id, event_type, attempt, attempt_status, response_status,
               latency_ms, response_excerpt, error, next_attempt_at, started_at, status)
      ), logged AS (
        INSERT INTO delivery_attempts (id, delivery_id, subscription_id, event_id, event_type, attempt, status,
                                       response_status, latency_ms, response_excerpt, error, next_retry_at, created_at)
        SELECT id, delivery_id, subscription_id, event_id, event_type, attempt, attempt_status, response_status,
               latency_ms, response_excerpt, error, next_attempt_at, started_at
          FROM u
      ), settled AS (
        UPDATE deliveries d
           SET status = u.status, next_attempt_at = u.next_attempt_at, locked_until = NULL,
               attempts = GREATEST(d.attempts, u.attempt),
               retry_index = d.retry_index + CASE WHEN u.status = 'PENDING' THEN 1 ELSE 0 END,
               last_attempt_at = u.started_at, last_response_status = u.response_status, last_error = u.error,
               finished_at = CASE WHEN u.status = 'PENDING' THEN NULL ELSE now() END
          FROM u
         WHERE d.id = u.delivery_id
        RETURNING d.subscription_id
      )
      ${then}`;
    return [
      sql,
      [
        r.map(() => uuidv7()),
        r.map((a) => a.deliveryId),
        r.map((a) => a.subscriptionId),
        r.map((a) => a.eventId),
        r.map((a) => a.eventType),
        r.map((a) => a.attempt),
        r.map((a) => a.status),
        r.map((a) => a.responseStatus),
        r.map((a) => a.latencyMs),
        r.map((a) => a.responseExcerpt),
        r.map((a) => a.error),
        outcomes.map((o) => o.nextAttemptAt),
        r.map((a) => a.startedAt),
        outcomes.map((o) => o.status),
      ],
    ];
  }

  /** Logs the attempts and settles their deliveries (inside the caller's transaction). */
  async settle(em: EntityManager, outcomes: AttemptOutcome[]): Promise<void> {
    if (outcomes.length === 0) return;
    await sqlRows(em, ...this.settleStatement(outcomes));
  }

  /**
   * Settles a batch of successful attempts in one statement (one round trip); their subscriptions
   * are healthy again (no failure streak, no parking, the whole window open). Returns how many
   * subscriptions that made healthy.
   */
  async settleSucceeded(outcomes: AttemptOutcome[]): Promise<number> {
    if (outcomes.length === 0) return 0;
    const rows = await sqlRows<{ id: string }>(
      this.ds,
      ...this.settleStatement(
        outcomes,
        `UPDATE subscriptions SET failing_since = NULL, parked_until = NULL, probe_index = 0, window_open = true
          WHERE id IN (SELECT subscription_id FROM settled)
            AND (failing_since IS NOT NULL OR parked_until IS NOT NULL OR NOT window_open)
          RETURNING id`,
      ),
    );
    return rows.length;
  }

  /**
   * Fails the events still waiting behind a parked endpoint once retrying each of them would have
   * come to an end: older than twice the schedule's span (a delivery's own retries last one span
   * from its first attempt, which may come up to one span late), and due for a whole span without
   * being taken (so one that is merely next in line, or waits out a Retry-After, keeps its turn).
   * They stay resendable.
   */
  async expireParked(spanMs: number, reason: string): Promise<number> {
    const rows = await sqlRows<{ id: string }>(
      this.ds,
      `UPDATE deliveries d
          SET status = 'FAILED', next_attempt_at = NULL, finished_at = now(), last_error = $2
         FROM subscriptions s
        WHERE s.id = d.subscription_id AND s.parked_until IS NOT NULL
          AND d.status = 'PENDING' AND (d.locked_until IS NULL OR d.locked_until <= now())
          AND d.next_attempt_at < now() - make_interval(secs => $1::bigint / 1000.0)
          AND d.created_at < now() - make_interval(secs => 2 * $1::bigint / 1000.0)
        RETURNING d.id`,
      [spanMs, reason],
    );
    // A held delivery has been due since it was held.
    const held = await this.failAllHeld({
      subs: 's.parked_until IS NOT NULL',
      // Held rows come in stream order, so the old ones are the first.
      rows: 'h.created_at < now() - make_interval(secs => 2 * $2::bigint / 1000.0)',
      error: '$3::text',
      params: [spanMs, reason],
    });
    return rows.length + held;
  }

  /** Ends every pending and held delivery of a subscription that is being disabled (they stay resendable). */
  async failPending(em: EntityManager, subscriptionId: string, reason: string): Promise<void> {
    await sqlRows(
      em,
      `UPDATE deliveries
          SET status = 'FAILED', next_attempt_at = NULL, finished_at = now(), last_error = COALESCE(last_error, $2)
        WHERE subscription_id = $1 AND status = 'PENDING' AND (locked_until IS NULL OR locked_until <= now())`,
      [subscriptionId, reason],
    );
    await this.failHeld(em, { subs: 's.id = $2', error: '$3::text', params: [subscriptionId, reason] }, 2 ** 31 - 1);
  }

  /**
   * Ends pending deliveries of disabled subscriptions that `failPending` could not see: an event
   * fanned out by a transaction that read the subscription as ACTIVE and committed just after it
   * was disabled (held ones included). Nothing would ever attempt them; failed, they stay
   * resendable.
   */
  async failStranded(): Promise<number> {
    const rows = await sqlRows<{ id: string }>(
      this.ds,
      `UPDATE deliveries d
          SET status = 'FAILED', next_attempt_at = NULL, finished_at = now(),
              last_error = COALESCE(d.last_error, 'subscription disabled: ' || COALESCE(s.disabled_reason, 'disabled'))
         FROM subscriptions s
        WHERE s.id = d.subscription_id AND s.status = 'DISABLED'
          AND d.status = 'PENDING' AND (d.locked_until IS NULL OR d.locked_until <= now())
        RETURNING d.id`,
    );
    const held = await this.failAllHeld({
      subs: `s.status = 'DISABLED'`,
      error: `'subscription disabled: ' || COALESCE(s.disabled_reason, 'disabled')`,
      params: [],
    });
    return rows.length + held;
  }

  /** A delivery of the subscription, and whether it is held behind its parked endpoint. */
  async findForSubscription(
    subscriptionId: string,
    id: string,
  ): Promise<{ delivery: DeliveryEntity; held: boolean } | null> {
    const delivery = await this.ds.getRepository(DeliveryEntity).findOneBy({ id, subscriptionId });
    if (delivery) return { delivery, held: false };
    const [held] = await this.held(`h.subscription_id = $1 AND h.id = $2`, [subscriptionId, id], 1);
    return held ? { delivery: held, held: true } : null;
  }

  /** Held deliveries as the deliveries they will be: pending, not tried, due when the endpoint's probe is. */
  private async held(where: string, params: unknown[], limit: number): Promise<DeliveryEntity[]> {
    const rows = await sqlRows<{
      id: string;
      seq: string;
      subscription_id: string;
      event_id: string;
      event_type: string;
      event_created_at: Date;
      stream_seq: string;
      order_key: string | null;
      payload: string;
      created_at: Date;
      parked_until: Date | null;
    }>(
      this.ds,
      `SELECT h.id, h.seq, h.subscription_id, h.event_id, h.event_type, h.event_created_at, h.stream_seq, h.order_key,
              h.payload, h.created_at, s.parked_until
         FROM held_deliveries h JOIN subscriptions s ON s.id = h.subscription_id
        WHERE ${where}
        ORDER BY h.stream_seq DESC
        LIMIT $${params.length + 1}`,
      [...params, limit],
    );
    return rows.map((r) =>
      this.ds.getRepository(DeliveryEntity).create({
        id: r.id,
        seq: String(r.seq),
        subscriptionId: r.subscription_id,
        eventId: r.event_id,
        eventType: r.event_type,
        eventCreatedAt: r.event_created_at,
        streamSeq: String(r.stream_seq),
        orderKey: r.order_key,
        payload: r.payload,
        status: 'PENDING',
        attempts: 0,
        retryIndex: 0,
        nextAttemptAt: r.parked_until,
        lockedUntil: null,
        lastAttemptAt: null,
        lastResponseStatus: null,
        lastError: null,
        createdAt: r.created_at,
        finishedAt: null,
      }),
    );
  }

  /** Puts a delivery back in line now with a fresh retry schedule; false when it has no body any more. */
  async requeue(id: string): Promise<boolean> {
    const rows = await sqlRows<{ id: string }>(
      this.ds,
      `UPDATE deliveries
          SET status = 'PENDING', next_attempt_at = now(), retry_index = 0, finished_at = NULL
        WHERE id = $1 AND payload IS NOT NULL
        RETURNING id`,
      [id],
    );
    return rows.length > 0;
  }

  /** Newest first, held deliveries (pending behind a parked endpoint) among them. */
  async listDeliveries(subscriptionId: string, limit: number, status?: DeliveryStatus): Promise<DeliveryEntity[]> {
    const stored = await this.ds.getRepository(DeliveryEntity).find({
      where: { subscriptionId, ...(status ? { status } : {}) },
      order: { seq: 'DESC' },
      take: limit,
    });
    if (status !== undefined && status !== 'PENDING') return stored;
    const held = await this.held('h.subscription_id = $1', [subscriptionId], limit);
    return [...held, ...stored].sort((a, b) => Number(b.seq) - Number(a.seq)).slice(0, limit);
  }

  listAttempts(subscriptionId: string, limit: number): Promise<DeliveryAttemptEntity[]> {
    return this.ds.getRepository(DeliveryAttemptEntity).find({
      where: { subscriptionId },
      order: { createdAt: 'DESC', id: 'DESC' },
      take: limit,
    });
  }

  /** Pending deliveries that have failed at least once, per subscription (the retry backlog). */
  retryBacklog(): Promise<{ subscription_id: string; n: string }[]> {
    return sqlRows(
      this.ds,
      `SELECT subscription_id, count(*) AS n FROM deliveries
        WHERE status = 'PENDING' AND retry_index > 0 GROUP BY subscription_id`,
    );
  }

  /** Forgets the bodies of finished deliveries older than the retention period. */
  async purgePayloads(retentionMs: number): Promise<number> {
    const rows = await sqlRows<{ id: string }>(
      this.ds,
      `UPDATE deliveries SET payload = NULL
        WHERE payload IS NOT NULL AND status <> 'PENDING'
          AND created_at < now() - make_interval(secs => $1::bigint / 1000.0)
        RETURNING id`,
      [retentionMs],
    );
    return rows.length;
  }
}
