import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { returnedRows } from '../rows';

export interface BucketState {
  allowed: boolean;
  /** Tokens left after this request (fractional: the bucket refills continuously). */
  tokens: number;
}

/** The only place that queries rate_limits. */
@Injectable()
export class RateLimitRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * Takes one token from the bucket `key` (created full on first use) in a single statement: the
   * row lock serialises concurrent requests from every replica, and the database clock is the one
   * clock they share. `greatest(..., 0)` keeps a request whose statement started before the
   * previous writer's from refilling backwards.
   */
  async take(key: string, perSecond: number, burst: number): Promise<BucketState> {
    const refilled = `least($3::float8, b.tokens + greatest(extract(epoch FROM now() - b.refilled_at), 0) * $2::float8)`;
    const rows = returnedRows<{ tokens: number; allowed: boolean }>(
      await this.ds.query(
        `INSERT INTO rate_limits AS b (key, tokens, allowed, refilled_at)
       VALUES ($1, $3::float8 - 1, true, now())
       ON CONFLICT (key) DO UPDATE SET
         allowed = ${refilled} >= 1,
         tokens = ${refilled} - CASE WHEN ${refilled} >= 1 THEN 1 ELSE 0 END,
         refilled_at = greatest(b.refilled_at, now())
       RETURNING tokens, allowed`,
        [key, perSecond, burst],
      ),
    );
    return { allowed: rows[0].allowed, tokens: Number(rows[0].tokens) };
  }

  /**
   * Deletes buckets idle for longer than `idleSeconds`. Called with at least the time a bucket
   * takes to refill completely, so a deleted bucket was full, exactly what a new one starts as.
   */
  async sweep(idleSeconds: number): Promise<number> {
    const [, deleted] = (await this.ds.query(
      `DELETE FROM rate_limits WHERE refilled_at < now() - make_interval(secs => $1)`,
      [idleSeconds],
    )) as [unknown, number];
    return deleted;
  }
}
