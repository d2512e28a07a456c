import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import type { DeliveryStatus } from '@app/contracts';
import { sqlRows } from '@app/database';

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

/** Claiming due deliveries for the dispatchers and settling their attempts. */
@Injectable()
export class DeliveryClaimsRepository {
  constructor(private readonly ds: DataSource) {}

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
}
