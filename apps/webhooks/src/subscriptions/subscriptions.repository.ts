import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { EventFilter } from '@app/contracts';
import { sqlRows } from '../database/sql';
import { SubscriptionEntity } from './subscription.entity';

export interface NewSubscription {
  id: string;
  userId: string;
  url: string;
  events: EventFilter[];
  appId: number | null;
  description: string | null;
  secret: string;
}

export interface SubscriptionChanges {
  url?: string;
  events?: EventFilter[];
  appId?: number | null;
  description?: string | null;
}

/** The only place that queries the subscriptions table. */
@Injectable()
export class SubscriptionsRepository {
  constructor(private readonly ds: DataSource) {}

  private repo(em: EntityManager = this.ds.manager) {
    return em.getRepository(SubscriptionEntity);
  }

  async create(s: NewSubscription): Promise<SubscriptionEntity> {
    // created_at, updated_at and the flags take their column defaults.
    await this.repo().insert({ ...s, status: 'ACTIVE' });
    return (await this.repo().findOneBy({ id: s.id }))!;
  }

  listForTenant(userId: string): Promise<SubscriptionEntity[]> {
    return this.repo().find({ where: { userId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  findForTenant(userId: string, id: string): Promise<SubscriptionEntity | null> {
    return this.repo().findOneBy({ id, userId });
  }

  /** Locks the row for the rest of the transaction (attempt bookkeeping, state changes). */
  lock(em: EntityManager, id: string): Promise<SubscriptionEntity | null> {
    return this.repo(em).createQueryBuilder('s').setLock('pessimistic_write').where('s.id = :id', { id }).getOne();
  }

  async update(em: EntityManager, id: string, changes: SubscriptionChanges): Promise<void> {
    const set: Record<string, unknown> = { updatedAt: () => 'now()' };
    if (changes.url !== undefined) {
      set.url = changes.url;
      // A new endpoint starts without the old one's failure streak.
      set.failingSince = null;
    }
    if (changes.events !== undefined) set.events = changes.events;
    if (changes.appId !== undefined) set.appId = changes.appId;
    if (changes.description !== undefined) set.description = changes.description;
    await this.repo(em).update({ id }, set);
  }

  async remove(userId: string, id: string): Promise<boolean> {
    const res = await this.repo().delete({ id, userId });
    return (res.affected ?? 0) > 0;
  }

  async rotateSecret(em: EntityManager, id: string, secret: string, graceMs: number): Promise<Date | null> {
    const [row] = await sqlRows<{ expires: Date | null }>(
      em,
      `UPDATE subscriptions
          SET previous_secret = CASE WHEN $3::bigint > 0 THEN secret END,
              previous_secret_expires_at = CASE WHEN $3::bigint > 0 THEN now() + make_interval(secs => $3::bigint / 1000.0) END,
              secret = $2,
              updated_at = now()
        WHERE id = $1
        RETURNING previous_secret_expires_at AS expires`,
      [id, secret, graceMs],
    );
    return row?.expires ?? null;
  }

  /**
   * Disables a subscription. When `announceEventId` is given an `endpoint.disabled` event is
   * owed: it is published from this row (and marked published) after the transaction commits.
   */
  async disable(em: EntityManager, id: string, reason: string, announceEventId: string | null): Promise<void> {
    await sqlRows(
      em,
      `UPDATE subscriptions
          SET status = 'DISABLED', disabled_reason = $2, disabled_at = now(), failing_since = NULL,
              disabled_event_id = COALESCE($3, disabled_event_id),
              disabled_event_published = ($3::text IS NULL),
              updated_at = now()
        WHERE id = $1`,
      [id, reason, announceEventId],
    );
  }

  /** Re-enables: the failure streak starts over. */
  async enable(em: EntityManager, id: string): Promise<void> {
    await sqlRows(
      em,
      `UPDATE subscriptions
          SET status = 'ACTIVE', disabled_reason = NULL, disabled_at = NULL, failing_since = NULL, updated_at = now()
        WHERE id = $1`,
      [id],
    );
  }

  /** Records a failed attempt: the streak starts at the first failure after a success. */
  async markFailing(em: EntityManager, id: string, since: Date): Promise<Date> {
    const [row] = await sqlRows<{ failing_since: Date }>(
      em,
      `UPDATE subscriptions SET failing_since = COALESCE(failing_since, $2) WHERE id = $1 RETURNING failing_since`,
      [id, since],
    );
    return row.failing_since;
  }

  async markHealthy(em: EntityManager, id: string): Promise<void> {
    await sqlRows(em, `UPDATE subscriptions SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL`, [
      id,
    ]);
  }

  /** Disabled subscriptions whose `endpoint.disabled` event has not been published yet. */
  unannounced(limit = 100): Promise<SubscriptionEntity[]> {
    return this.repo().find({ where: { disabledEventPublished: false }, take: limit });
  }

  async markAnnounced(id: string, eventId: string): Promise<void> {
    await this.repo().update({ id, disabledEventId: eventId }, { disabledEventPublished: true });
  }

  transaction<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
    return this.ds.transaction(work);
  }
}
