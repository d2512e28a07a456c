import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { sqlRows } from '@app/database';
import { DeliveryEntity } from './delivery.entity';

/** Which held deliveries to end (see `HeldDeliveriesRepository.fail`). */
export interface HeldPick {
  subs: string;
  rows?: string;
  error: string;
  params: unknown[];
}

/** Held deliveries failed per subscription and statement by housekeeping. */
const HELD_BATCH = 5000;

/**
 * Deliveries held behind a parked endpoint (`held_deliveries`): moved into the line when the
 * endpoint answers again, ended when nothing would ever send them, and read as the pending
 * deliveries they will be.
 */
@Injectable()
export class HeldDeliveriesRepository {
  constructor(private readonly ds: DataSource) {}

  /**
   * Moves held deliveries into the line, oldest event first, keeping their ids and order: up to
   * `perSubscription` of each subscription whose endpoint is no longer parked, and the oldest one
   * of a parked subscription whose probe is due and has no event in line that was never tried
   * (what a probe prefers). Returns how many moved; call again while it moves any.
   */
  release(perSubscription: number): Promise<number> {
    return this.move(
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
  fail(q: DataSource | EntityManager, pick: HeldPick, perSubscription: number): Promise<number> {
    return this.move(
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
  private async move(
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

  /** `fail` in batches until it takes nothing more. */
  async failAll(pick: HeldPick): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.fail(this.ds, pick, HELD_BATCH);
      if (n === 0) return total;
      total += n;
    }
  }

  /** A held delivery of the subscription, as the delivery it will be. */
  async findOne(subscriptionId: string, id: string): Promise<DeliveryEntity | null> {
    const [held] = await this.asDeliveries(`h.subscription_id = $1 AND h.id = $2`, [subscriptionId, id], 1);
    return held ?? null;
  }

  /** The newest held deliveries of the subscription (older than `beforeSeq`), as the deliveries they will be. */
  newest(subscriptionId: string, limit: number, beforeSeq?: string): Promise<DeliveryEntity[]> {
    return beforeSeq === undefined
      ? this.asDeliveries('h.subscription_id = $1', [subscriptionId], limit)
      : this.asDeliveries('h.subscription_id = $1 AND h.seq < $2', [subscriptionId, beforeSeq], limit);
  }

  /** Held deliveries as the deliveries they will be: pending, not tried, due when the endpoint's probe is. */
  private async asDeliveries(where: string, params: unknown[], limit: number): Promise<DeliveryEntity[]> {
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
}
