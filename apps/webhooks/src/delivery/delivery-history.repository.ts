import { Injectable } from '@nestjs/common';
import { DataSource, In, LessThan } from 'typeorm';
import type { DeliveryStatus } from '@app/contracts';
import { sqlRows } from '@app/database';
import { DeliveryAttemptEntity } from './delivery-attempt.entity';
import { DeliveryEntity } from './delivery.entity';
import { HeldDeliveriesRepository } from './held-deliveries.repository';

/** A subscription's deliveries and attempts as its owner reads them, and resending one. */
@Injectable()
export class DeliveryHistoryRepository {
  constructor(
    private readonly ds: DataSource,
    private readonly held: HeldDeliveriesRepository,
  ) {}

  /** A delivery of the subscription, and whether it is held behind its parked endpoint. */
  async findForSubscription(
    subscriptionId: string,
    id: string,
  ): Promise<{ delivery: DeliveryEntity; held: boolean } | null> {
    const delivery = await this.ds.getRepository(DeliveryEntity).findOneBy({ id, subscriptionId });
    if (delivery) return { delivery, held: false };
    const held = await this.held.findOne(subscriptionId, id);
    return held ? { delivery: held, held: true } : null;
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

  /**
   * Newest first, held deliveries (pending behind a parked endpoint) among them; with `beforeSeq`,
   * only those older than the delivery of that insertion order (the next page after it).
   */
  async listDeliveries(
    subscriptionId: string,
    limit: number,
    status?: DeliveryStatus,
    beforeSeq?: string,
  ): Promise<DeliveryEntity[]> {
    const stored = await this.ds.getRepository(DeliveryEntity).find({
      where: {
        subscriptionId,
        ...(status ? { status } : {}),
        ...(beforeSeq !== undefined ? { seq: LessThan(beforeSeq) } : {}),
      },
      order: { seq: 'DESC' },
      take: limit,
    });
    if (status !== undefined && status !== 'PENDING') return stored;
    const held = await this.held.newest(subscriptionId, limit, beforeSeq);
    return [...held, ...stored].sort((a, b) => Number(b.seq) - Number(a.seq)).slice(0, limit);
  }

  listAttempts(subscriptionId: string, limit: number): Promise<DeliveryAttemptEntity[]> {
    return this.ds.getRepository(DeliveryAttemptEntity).find({
      where: { subscriptionId },
      order: { createdAt: 'DESC', id: 'DESC' },
      take: limit,
    });
  }

  /** The latest `perDelivery` attempts of each of the deliveries, oldest first. */
  async attemptsOf(deliveryIds: string[], perDelivery: number): Promise<DeliveryAttemptEntity[]> {
    if (deliveryIds.length === 0) return [];
    const rows = await sqlRows<{ id: string }>(
      this.ds,
      `SELECT a.id
         FROM unnest($1::uuid[]) d(id)
         CROSS JOIN LATERAL (
           SELECT a.id FROM delivery_attempts a
            WHERE a.delivery_id = d.id
            ORDER BY a.created_at DESC, a.id DESC
            LIMIT $2
         ) a`,
      [deliveryIds, perDelivery],
    );
    if (rows.length === 0) return [];
    return this.ds.getRepository(DeliveryAttemptEntity).find({
      where: { id: In(rows.map((r) => r.id)) },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
  }
}
