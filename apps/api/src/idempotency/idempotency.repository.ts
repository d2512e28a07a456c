import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { IdempotencyKeyEntity } from './idempotency-key.entity';
import { returnedRows } from '@app/database';

/** The only place that queries idempotency_keys. */
@Injectable()
export class IdempotencyRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * Claims the key for a first request (insert first: the primary key makes concurrent duplicates
   * lose). A key older than the TTL is taken over. True when this request owns the key.
   */
  async claim(userId: string, key: string, requestHash: string, ttlHours: number): Promise<boolean> {
    const rows = returnedRows<unknown>(
      await this.ds.query(
        `INSERT INTO idempotency_keys (user_id, key, request_hash, state) VALUES ($1, $2, $3, 'PENDING')
       ON CONFLICT (user_id, key) DO UPDATE
         SET request_hash = excluded.request_hash, state = 'PENDING', response_status = NULL,
             response_body = NULL, created_at = now()
         WHERE idempotency_keys.created_at < now() - make_interval(hours => $4)
       RETURNING key`,
        [userId, key, requestHash, ttlHours],
      ),
    );
    return rows.length > 0;
  }

  /**
   * Takes over a key whose first request's lease ran out (its process died, or lost the database,
   * before answering): not renewed for `leaseSeconds`. True when this request now owns it.
   */
  async takeOverExpired(userId: string, key: string, requestHash: string, leaseSeconds: number): Promise<boolean> {
    const rows = returnedRows<unknown>(
      await this.ds.query(
        `UPDATE idempotency_keys SET created_at = now()
         WHERE user_id = $1 AND key = $2 AND request_hash = $3 AND state = 'PENDING'
           AND created_at < now() - make_interval(secs => $4)
         RETURNING key`,
        [userId, key, requestHash, leaseSeconds],
      ),
    );
    return rows.length > 0;
  }

  /** Renews the lease of a key in progress (its request is alive). */
  async renew(userId: string, key: string): Promise<void> {
    await this.ds.query(
      `UPDATE idempotency_keys SET created_at = now() WHERE user_id = $1 AND key = $2 AND state = 'PENDING'`,
      [userId, key],
    );
  }

  find(userId: string, key: string): Promise<IdempotencyKeyEntity | null> {
    return this.ds.getRepository(IdempotencyKeyEntity).findOneBy({ userId, key });
  }

  async complete(userId: string, key: string, status: number, body: unknown): Promise<void> {
    await this.ds.query(
      `UPDATE idempotency_keys SET state = 'COMPLETED', response_status = $3, response_body = $4::jsonb
       WHERE user_id = $1 AND key = $2`,
      [userId, key, status, JSON.stringify(body)],
    );
  }

  /** Gives the key up when the first request did not succeed, so a retry is evaluated afresh. */
  async forget(userId: string, key: string): Promise<void> {
    await this.ds.query(`DELETE FROM idempotency_keys WHERE user_id = $1 AND key = $2 AND state = 'PENDING'`, [
      userId,
      key,
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
