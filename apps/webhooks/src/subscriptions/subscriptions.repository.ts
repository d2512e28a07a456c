import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { EventFilter } from '@app/contracts';
import { isPgError, PG_ERROR, sqlRows } from '@app/database';
import { SecretCipher } from './secret-cipher';
import { SubscriptionEntity } from './subscription.entity';

export interface NewSubscription {
  id: string;
  userId: string;
  url: string;
  events: EventFilter[];
  appId: number | null;
  description: string | null;
  /** In clear: it is sealed here, before it reaches the table. */
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
  constructor(
    private readonly ds: DataSource,
    private readonly cipher: SecretCipher,
  ) {}

  private repo(em: EntityManager = this.ds.manager) {
    return em.getRepository(SubscriptionEntity);
  }

  /**
   * Creates the subscription unless its user already has `max`; null then. The user's creations
   * are serialized (an advisory lock), so concurrent requests cannot pass the cap together.
   */
  async create(s: NewSubscription, max = Number.MAX_SAFE_INTEGER): Promise<SubscriptionEntity | null> {
    const sealed = this.cipher.seal(s.id, s.secret);
    const created = await this.ds.transaction(async (em) => {
      await sqlRows(em, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`subscriptions:${s.userId}`]);
      if ((await this.repo(em).countBy({ userId: s.userId })) >= max) return false;
      // created_at, updated_at and the flags take their column defaults.
      await this.repo(em).insert({ ...s, secret: sealed.value, secretKeyId: sealed.keyId, status: 'ACTIVE' });
      return true;
    });
    return created ? this.repo().findOneBy({ id: s.id }) : null;
  }

  /** The secrets that sign a delivery, opened: the current one, and the previous one while in grace. */
  openSecrets(
    row: { id: string; secret: string; previous_secret: string | null; secret_key_id: string | null },
    previousValid: boolean,
  ): string[] {
    const open = (value: string) => this.cipher.open(row.id, { keyId: row.secret_key_id, value });
    return previousValid && row.previous_secret ? [open(row.secret), open(row.previous_secret)] : [open(row.secret)];
  }

  /**
   * Seals rows stored in clear or under a key that is no longer the current one, a few at a time;
   * returns how many. After a key rotation the old key can go once this reports 0.
   */
  async reseal(limit = 200): Promise<number> {
    return this.ds.transaction(async (em) => {
      const rows = await sqlRows<{
        id: string;
        secret: string;
        previous_secret: string | null;
        secret_key_id: string | null;
      }>(
        em,
        // Rows under a key this process does not know are left alone (another replica may know it).
        `SELECT id, secret, previous_secret, secret_key_id FROM subscriptions
          WHERE secret_key_id IS NULL OR secret_key_id = ANY($1::text[])
          LIMIT $2 FOR UPDATE SKIP LOCKED`,
        [this.cipher.olderKeyIds, limit],
      );
      for (const row of rows) {
        const [secret, previous] = this.openSecrets(row, true);
        await sqlRows(
          em,
          `UPDATE subscriptions SET secret = $2, previous_secret = $3, secret_key_id = $4 WHERE id = $1`,
          [
            row.id,
            this.cipher.seal(row.id, secret).value,
            previous === undefined ? null : this.cipher.seal(row.id, previous).value,
            this.cipher.currentKeyId,
          ],
        );
      }
      return rows.length;
    });
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
      // A new endpoint starts without the old one's failure streak or parking.
      set.failingSince = null;
      set.parkedUntil = null;
      set.probeIndex = 0;
      set.windowOpen = false;
    }
    if (changes.events !== undefined) set.events = changes.events;
    if (changes.appId !== undefined) set.appId = changes.appId;
    if (changes.description !== undefined) set.description = changes.description;
    await this.repo(em).update({ id }, set);
  }

  /**
   * Deletes the subscription with its deliveries. The cascade can deadlock with a dispatcher
   * settling the same subscription's last attempts (each holds rows the other wants); PostgreSQL
   * then ends one of the two, and the delete is tried again.
   */
  async remove(userId: string, id: string): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      try {
        const res = await this.repo().delete({ id, userId });
        return (res.affected ?? 0) > 0;
      } catch (err) {
        if (attempt >= 3 || !isPgError(err, PG_ERROR.deadlockDetected)) throw err;
      }
    }
  }

  /** Replaces the secret; the one it replaces keeps signing for `graceMs`. Both are sealed anew. */
  async rotateSecret(em: EntityManager, id: string, secret: string, graceMs: number): Promise<Date | null> {
    const sub = await this.lock(em, id);
    if (!sub) return null;
    const previous = graceMs > 0 ? this.cipher.open(id, { keyId: sub.secretKeyId, value: sub.secret }) : null;
    const sealed = this.cipher.seal(id, secret);
    const [row] = await sqlRows<{ expires: Date | null }>(
      em,
      `UPDATE subscriptions
          SET previous_secret = $3,
              previous_secret_expires_at = CASE WHEN $5::bigint > 0 THEN now() + make_interval(secs => $5::bigint / 1000.0) END,
              secret = $2, secret_key_id = $4,
              updated_at = now()
        WHERE id = $1
        RETURNING previous_secret_expires_at AS expires`,
      [id, sealed.value, previous === null ? null : this.cipher.seal(id, previous).value, sealed.keyId, graceMs],
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
              parked_until = NULL, probe_index = 0,
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
          SET status = 'ACTIVE', disabled_reason = NULL, disabled_at = NULL, failing_since = NULL,
              parked_until = NULL, probe_index = 0, window_open = false, updated_at = now()
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

  /**
   * Parks a failing endpoint until `until`: nothing goes to it before, then one probe. Only the
   * first failure of a round moves the schedule on (`probe_index`); failures of attempts that were
   * already in flight when it was parked leave the parking as it is. Its window closes to one
   * attempt at a time until an attempt succeeds again.
   */
  async park(em: EntityManager, id: string, until: Date, now: Date): Promise<void> {
    await sqlRows(
      em,
      `UPDATE subscriptions SET parked_until = $2, probe_index = probe_index + 1, window_open = false
        WHERE id = $1 AND (parked_until IS NULL OR parked_until <= $3)`,
      [id, until, now],
    );
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
