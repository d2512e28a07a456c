import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import type { DeliveryStatus, EventType } from '@app/contracts';
import { sqlRows } from '../database/sql';
import { DeliveryAttemptEntity } from './delivery-attempt.entity';
import { DeliveryEntity } from './delivery.entity';

/** An event ready to fan out: routing fields plus the exact body subscribers receive. */
export interface FanOutEvent {
  eventId: string;
  type: EventType;
  userId: string;
  appId: number | null;
  createdAt: Date;
  streamSeq: number;
  payload: string;
}

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
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
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

/** The only place that queries deliveries and delivery attempts. */
@Injectable()
export class DeliveriesRepository {
  constructor(private readonly ds: DataSource) {}

  /**
   * One delivery per matching active subscription of the event's tenant (by type or `*`, and by
   * app when the subscription has one), in one statement. Idempotent: a redelivered event adds
   * nothing. Returns how many deliveries were created.
   */
  async fanOut(e: FanOutEvent): Promise<number> {
    const rows = await sqlRows<{ id: string }>(
      this.ds,
      `INSERT INTO deliveries (id, subscription_id, event_id, event_type, event_created_at, stream_seq, payload, next_attempt_at)
       SELECT gen_random_uuid(), s.id, $1, $2, $3, $4, $5, now()
         FROM subscriptions s
        WHERE s.user_id = $6
          AND s.status = 'ACTIVE'
          AND (s.events @> ARRAY['*']::text[] OR s.events @> ARRAY[$2]::text[])
          AND (s.app_id IS NULL OR s.app_id = $7)
       ON CONFLICT (subscription_id, event_id) DO NOTHING
       RETURNING id`,
      [e.eventId, e.type, e.createdAt, e.streamSeq, e.payload, e.userId, e.appId],
    );
    return rows.length;
  }

  /** A delivery to one subscription outside the stream (test events): it goes ahead of the rest. */
  async insertOne(subscriptionId: string, e: Omit<FanOutEvent, 'userId' | 'appId' | 'streamSeq'>): Promise<string> {
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
   * Takes due deliveries for sending, at most `max`, and never more than `perSubscription` in
   * flight for one subscription (counting those other dispatchers hold). Each subscription's oldest
   * event goes first. Subscriptions are locked while choosing, so concurrent dispatchers never
   * exceed the limit together; a taken delivery is leased until `leaseMs` from now, after which a
   * crashed holder's work is taken again.
   */
  async claim(max: number, perSubscription: number, leaseMs: number): Promise<ClaimedDelivery[]> {
    return this.ds.transaction(async (em) => {
      const rows = await sqlRows<ClaimedDelivery & { stream_seq: string; seq: string }>(
        em,
        `WITH due AS (
           SELECT d.subscription_id, min(d.next_attempt_at) AS first_due
             FROM deliveries d
            WHERE d.status = 'PENDING' AND d.next_attempt_at <= now()
              AND (d.locked_until IS NULL OR d.locked_until <= now())
            GROUP BY d.subscription_id
         ), busy AS (
           SELECT b.subscription_id, count(*) AS n
             FROM deliveries b
            WHERE b.status = 'PENDING' AND b.locked_until IS NOT NULL AND b.locked_until > now()
            GROUP BY b.subscription_id
         ), subs AS (
           -- Subscriptions already at their limit are left out here, so they never take the
           -- places of others that have room.
           SELECT s.id, $2 - COALESCE(busy.n, 0) AS room
             FROM subscriptions s
             JOIN due ON due.subscription_id = s.id
             LEFT JOIN busy ON busy.subscription_id = s.id
            WHERE s.status = 'ACTIVE' AND COALESCE(busy.n, 0) < $2
            ORDER BY due.first_due
            LIMIT $1
            FOR UPDATE OF s SKIP LOCKED
         ), picked AS (
           SELECT p.id FROM subs CROSS JOIN LATERAL (
             SELECT d.id, d.stream_seq, d.seq FROM deliveries d
              WHERE d.subscription_id = subs.id AND d.status = 'PENDING' AND d.next_attempt_at <= now()
                AND (d.locked_until IS NULL OR d.locked_until <= now())
              ORDER BY d.stream_seq, d.seq
              LIMIT subs.room
           ) p
           ORDER BY p.stream_seq, p.seq
           LIMIT $1
         )
         UPDATE deliveries d
            SET locked_until = now() + make_interval(secs => $3::bigint / 1000.0)
           FROM picked, subscriptions s
          WHERE d.id = picked.id AND s.id = d.subscription_id
         RETURNING d.id, d.subscription_id, d.event_id, d.event_type, d.event_created_at, d.payload, d.attempts,
                   d.retry_index, d.stream_seq, d.seq, s.url, s.secret, s.previous_secret, s.previous_secret_expires_at`,
        [max, perSubscription, leaseMs],
      );
      return rows.sort((a, b) => Number(a.stream_seq) - Number(b.stream_seq) || Number(a.seq) - Number(b.seq));
    });
  }

  /** Gives a delivery back untouched (this process is stopping mid-attempt). */
  async release(id: string): Promise<void> {
    await sqlRows(this.ds, `UPDATE deliveries SET locked_until = NULL WHERE id = $1`, [id]);
  }

  async recordAttempt(em: EntityManager, a: AttemptRecord, nextRetryAt: Date | null): Promise<void> {
    await em.getRepository(DeliveryAttemptEntity).insert({
      id: uuidv7(),
      deliveryId: a.deliveryId,
      subscriptionId: a.subscriptionId,
      eventId: a.eventId,
      eventType: a.eventType,
      attempt: a.attempt,
      status: a.status,
      responseStatus: a.responseStatus,
      latencyMs: a.latencyMs,
      responseExcerpt: a.responseExcerpt,
      error: a.error,
      nextRetryAt,
      createdAt: a.startedAt,
    });
  }

  /** Settles a delivery after an attempt: succeeded, failed for good, or due again at `nextAttemptAt`. */
  async settle(
    em: EntityManager,
    id: string,
    outcome: { status: DeliveryStatus; nextAttemptAt: Date | null; retried: boolean },
    a: Pick<AttemptRecord, 'attempt' | 'responseStatus' | 'error' | 'startedAt'>,
  ): Promise<void> {
    await sqlRows(
      em,
      `UPDATE deliveries
          SET status = $2, next_attempt_at = $3, locked_until = NULL,
              attempts = GREATEST(attempts, $4), retry_index = retry_index + CASE WHEN $5 THEN 1 ELSE 0 END,
              last_attempt_at = $6, last_response_status = $7, last_error = $8,
              finished_at = CASE WHEN $2 = 'PENDING' THEN NULL ELSE now() END
        WHERE id = $1`,
      [id, outcome.status, outcome.nextAttemptAt, a.attempt, outcome.retried, a.startedAt, a.responseStatus, a.error],
    );
  }

  /** Ends every pending delivery of a subscription that is being disabled (they stay resendable). */
  async failPending(em: EntityManager, subscriptionId: string, reason: string): Promise<void> {
    await sqlRows(
      em,
      `UPDATE deliveries
          SET status = 'FAILED', next_attempt_at = NULL, finished_at = now(), last_error = COALESCE(last_error, $2)
        WHERE subscription_id = $1 AND status = 'PENDING' AND (locked_until IS NULL OR locked_until <= now())`,
      [subscriptionId, reason],
    );
  }

  findForSubscription(subscriptionId: string, id: string): Promise<DeliveryEntity | null> {
    return this.ds.getRepository(DeliveryEntity).findOneBy({ id, subscriptionId });
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

  listDeliveries(subscriptionId: string, limit: number, status?: DeliveryStatus): Promise<DeliveryEntity[]> {
    return this.ds.getRepository(DeliveryEntity).find({
      where: { subscriptionId, ...(status ? { status } : {}) },
      order: { seq: 'DESC' },
      take: limit,
    });
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
