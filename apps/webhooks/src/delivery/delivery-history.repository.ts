import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
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

  /** Newest first, held deliveries (pending behind a parked endpoint) among them. */
  async listDeliveries(subscriptionId: string, limit: number, status?: DeliveryStatus): Promise<DeliveryEntity[]> {
    const stored = await this.ds.getRepository(DeliveryEntity).find({
      where: { subscriptionId, ...(status ? { status } : {}) },
      order: { seq: 'DESC' },
      take: limit,
    });
    if (status !== undefined && status !== 'PENDING') return stored;
    const held = await this.held.newest(subscriptionId, limit);
    return [...held, ...stored].sort((a, b) => Number(b.seq) - Number(a.seq)).slice(0, limit);
  }

  listAttempts(subscriptionId: string, limit: number): Promise<DeliveryAttemptEntity[]> {
    return this.ds.getRepository(DeliveryAttemptEntity).find({
      where: { subscriptionId },
      order: { createdAt: 'DESC', id: 'DESC' },
      take: limit,
    });
  }
}
