import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { IdempotencyKeyEntity } from './idempotency-key.entity';
import { returnedRows } from '@app/database';

/** The only place that queries idempotency_keys. */
@Injectable()
export class IdempotencyRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * Claims the key for a first request (insert first: the primary key makes concurrent duplicates
   * lose), as `holder`. A key older than the TTL is taken over. True when this request owns the key.
   */
  async claim(userId: string, key: string, requestHash: string, ttlHours: number, holder: string): Promise<boolean> {
    const rows = returnedRows<unknown>(
      await this.ds.query(
        `INSERT INTO idempotency_keys (user_id, key, request_hash, state, holder) VALUES ($1, $2, $3, 'PENDING', $5)
       ON CONFLICT (user_id, key) DO UPDATE
         SET request_hash = excluded.request_hash, state = 'PENDING', response_status = NULL,
             response_body = NULL, created_at = now(), holder = excluded.holder, message_id = NULL
         WHERE idempotency_keys.created_at < now() - make_interval(hours => $4)
       RETURNING key`,
        [userId, key, requestHash, ttlHours, holder],
      ),
    );
    return rows.length > 0;
  }

  /**
   * Takes over a key whose first request's lease ran out (its process died, stalled, or lost the
   * database, before answering): not renewed for `leaseSeconds`. It waits for a send that holds
   * the key row in its transaction, so what that send committed is there to be found. True when
   * this request, as `holder`, now owns it.
   */
  async takeOverExpired(
    userId: string,
    key: string,
    requestHash: string,
    leaseSeconds: number,
    holder: string,
  ): Promise<boolean> {
    const rows = returnedRows<unknown>(
      await this.ds.query(
        `UPDATE idempotency_keys SET created_at = now(), holder = $5
         WHERE user_id = $1 AND key = $2 AND request_hash = $3 AND state = 'PENDING'
           AND created_at < now() - make_interval(secs => $4)
         RETURNING key`,
        [userId, key, requestHash, leaseSeconds, holder],
      ),
    );
    return rows.length > 0;
  }

  /**
   * Renews the leases of keys in progress, each while its `holder` (its request, alive) still
   * holds it: one statement for all of a process's requests. A key whose row a send's transaction
   * has locked is left for the next renewal rather than waited for (rows locked in one order).
   */
  async renew(leases: { userId: string; key: string; holder: string }[]): Promise<void> {
    await this.ds.query(
      `WITH l AS (
         SELECT k.user_id, k.key FROM idempotency_keys k
           JOIN unnest($1::uuid[], $2::text[], $3::uuid[]) AS l(user_id, key, holder)
             ON k.user_id = l.user_id AND k.key = l.key AND k.holder = l.holder
          WHERE k.state = 'PENDING'
          ORDER BY k.user_id, k.key
            FOR UPDATE OF k SKIP LOCKED
       )
       UPDATE idempotency_keys k SET created_at = now() FROM l WHERE k.user_id = l.user_id AND k.key = l.key`,
      [leases.map((l) => l.userId), leases.map((l) => l.key), leases.map((l) => l.holder)],
    );
  }

  find(userId: string, key: string): Promise<IdempotencyKeyEntity | null> {
    return this.ds.getRepository(IdempotencyKeyEntity).findOneBy({ userId, key });
  }

  /** Stores the answer, while `holder` still holds the key; false when another request took it over. */
  async complete(userId: string, key: string, holder: string, status: number, body: unknown): Promise<boolean> {
    const rows = returnedRows<unknown>(
      await this.ds.query(
        `UPDATE idempotency_keys SET state = 'COMPLETED', response_status = $4, response_body = $5::jsonb
         WHERE user_id = $1 AND key = $2 AND holder = $3
         RETURNING key`,
        [userId, key, holder, status, JSON.stringify(body)],
      ),
    );
    return rows.length > 0;
  }

  /**
   * Gives the key up when its request did not succeed, so a retry is evaluated afresh: only while
   * `holder` holds it and no send committed under it (its statement holds the row until it
   * committed, so a commit whose answer was lost is seen). False when the key was kept.
   */
  async forget(userId: string, key: string, holder: string): Promise<boolean> {
    const rows = returnedRows<unknown>(
      await this.ds.query(
        `DELETE FROM idempotency_keys
         WHERE user_id = $1 AND key = $2 AND holder = $3 AND state = 'PENDING' AND message_id IS NULL
         RETURNING key`,
        [userId, key, holder],
      ),
    );
    return rows.length > 0;
  }

  /**
   * For a send's statement: CTEs that lock, in key order, the rows of the keys (given as arrays of
   * keys, holders and message ids, one entry per send, in parameters) still held by their sends,
   * and record each send's message on its key (`key_held`, a row per key recorded). The send
   * commits only when every key was recorded: a takeover then waits for the commit, and its
   * request finds the message. Evaluate `held` (the count recorded) before the statement takes any
   * other contended row, so that two sends of one key never wait on each other.
   */
  heldSql(p: { user: string; keys: string; holders: string; messages: string }): { ctes: string; held: string } {
    return {
      ctes: `key_locked AS (
         ${lockHeldSql(p.user, p.keys, p.holders)}
       ), key_held AS (
         UPDATE idempotency_keys k SET message_id = x.message_id
         FROM unnest(${p.keys}::text[], ${p.holders}::uuid[], ${p.messages}::text[]) AS x(key, holder, message_id)
         WHERE k.user_id = ${p.user}::uuid AND k.key = x.key AND k.holder = x.holder AND k.state = 'PENDING'
           AND k.key IN (SELECT key FROM key_locked)
         RETURNING k.key
       )`,
      held: '(SELECT count(*) FROM key_held)',
    };
  }

  /**
   * Locks, in key order, the rows of the keys still held by these sends, until the caller's
   * transaction ends: the keys held (a takeover meanwhile waits for the transaction).
   */
  async lockHeld(em: EntityManager, userId: string, held: { key: string; holder: string }[]): Promise<Set<string>> {
    if (held.length === 0) return new Set();
    const rows: { key: string }[] = await em.query(lockHeldSql('$1', '$2', '$3'), [
      userId,
      held.map((h) => h.key),
      held.map((h) => h.holder),
    ]);
    return new Set(rows.map((r) => r.key));
  }

  /** Records each send's message on its key (locked by `lockHeld` in the same transaction). */
  async recordHeld(
    em: EntityManager,
    userId: string,
    sends: { key: string; holder: string; messageId: string }[],
  ): Promise<void> {
    if (sends.length === 0) return;
    const sql = this.heldSql({ user: '$1', keys: '$2', holders: '$3', messages: '$4' });
    await em.query(`WITH ${sql.ctes} SELECT ${sql.held}`, [
      userId,
      sends.map((s) => s.key),
      sends.map((s) => s.holder),
      sends.map((s) => s.messageId),
    ]);
  }

  /** Deletes keys past their TTL (claim() would take them over anyway); returns how many. */
  async sweep(ttlHours: number): Promise<number> {
    const [, deleted] = (await this.ds.query(
      `DELETE FROM idempotency_keys WHERE created_at < now() - make_interval(hours => $1)`,
      [ttlHours],
    )) as [unknown, number];
    return deleted;
  }
}

/** The rows of the keys (arrays in `keys` and `holders`) still held by those holders, locked in key order. */
function lockHeldSql(user: string, keys: string, holders: string): string {
  return `SELECT k.key FROM idempotency_keys k
         JOIN unnest(${keys}::text[], ${holders}::uuid[]) AS x(key, holder) ON k.key = x.key AND k.holder = x.holder
         WHERE k.user_id = ${user}::uuid AND k.state = 'PENDING'
         ORDER BY k.key FOR UPDATE OF k`;
}
