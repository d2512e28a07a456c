import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { sqlRows, statementIn, transactionCommittedByLast } from '@app/database';
import { applyForwardOnly, messageKeyOf, StatusStep } from './forward-only';
import { countsOf, FAN_OUT, FannedOut, FanOutEvent, fanOutParams, FanOutRow } from './fan-out.statement';

export type { FannedOut, FanOutEvent } from './fan-out.statement';

/**
 * Turning events into deliveries: the stream's fan-out, with the forward-only bookkeeping of
 * message statuses, and single deliveries outside the stream.
 */
@Injectable()
export class FanOutRepository {
  constructor(private readonly ds: DataSource) {}

  /**
   * One delivery per matching active subscription of each event's tenant (by type or `*`, and by
   * app when the subscription has one), for a batch of events in one statement, in the batch's
   * order. A subscription whose endpoint is parked, or still has held events to release, gets a
   * held delivery instead (see `HeldDeliveriesRepository.release`). Idempotent: a redelivered event adds nothing.
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
}
