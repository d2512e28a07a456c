import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { sqlRows } from '@app/database';
import { HeldDeliveriesRepository } from './held-deliveries.repository';

/**
 * Ending deliveries that nothing would ever send (behind an endpoint parked too long, of a
 * disabled subscription), forgetting old bodies, and the retry backlog's gauge.
 */
@Injectable()
export class DeliveryHousekeepingRepository {
  constructor(
    private readonly ds: DataSource,
    private readonly held: HeldDeliveriesRepository,
  ) {}

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
    const held = await this.held.failAll({
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
    await this.held.fail(em, { subs: 's.id = $2', error: '$3::text', params: [subscriptionId, reason] }, 2 ** 31 - 1);
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
    const held = await this.held.failAll({
      subs: `s.status = 'DISABLED'`,
      error: `'subscription disabled: ' || COALESCE(s.disabled_reason, 'disabled')`,
      params: [],
    });
    return rows.length + held;
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
