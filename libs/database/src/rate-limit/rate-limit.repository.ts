import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { GroupCommit } from '../group-commit';
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
   * Takes one token from the bucket `key` (created full on first use). Requests that arrive while
   * a take is under way go together in the next statement, which takes as many tokens from each
   * bucket as it has requests waiting on it; each request is answered as if the requests had taken
   * their tokens one after another in the order they arrived.
   */
  take(key: string, perSecond: number, burst: number): Promise<BucketState> {
    return this.takes.submit(`${perSecond}/${burst}`, key);
  }

  private readonly takes = new GroupCommit<string, BucketState>((limits, keys) => {
    const [perSecond, burst] = limits.split('/').map(Number);
    return this.takeMany(keys, perSecond, burst);
  }, 500);

  /**
   * One statement for many requests: each bucket is locked (in key order, so statements of other
   * replicas never deadlock) and refilled, then gives its waiting requests `min(n, floor(refilled))`
   * tokens; the database clock is the one clock all replicas share. `greatest(..., 0)` keeps a
   * statement that started before the previous writer's from refilling backwards. A bucket another
   * replica created at the same moment is taken from by a second statement.
   */
  private async takeMany(keys: string[], perSecond: number, burst: number): Promise<BucketState[]> {
    const asked = new Map<string, number>();
    for (const k of keys) asked.set(k, (asked.get(k) ?? 0) + 1);
    const took = new Map<string, { refilled: number; granted: number }>();
    while (took.size < asked.size) {
      const missing = [...asked].filter(([k]) => !took.has(k));
      const rows = returnedRows<{ key: string; refilled: number; granted: number }>(
        await this.ds.query(
          `WITH r AS (
             SELECT * FROM unnest($1::text[], $4::integer[]) AS r(key, n)
           ), old AS (
             SELECT b.key,
                    least($3::float8, b.tokens + greatest(extract(epoch FROM now() - b.refilled_at), 0) * $2::float8) AS refilled
               FROM rate_limits b WHERE b.key IN (SELECT key FROM r)
              ORDER BY b.key
                FOR UPDATE
           ), took AS (
             SELECT old.key, old.refilled, r.n, least(r.n, greatest(floor(old.refilled), 0))::integer AS granted
               FROM old JOIN r USING (key)
           ), upd AS (
             UPDATE rate_limits b
                SET tokens = t.refilled - t.granted, allowed = t.granted = t.n, refilled_at = greatest(b.refilled_at, now())
               FROM took t
              WHERE b.key = t.key
           ), ins AS (
             INSERT INTO rate_limits (key, tokens, allowed, refilled_at)
             SELECT r.key, $3::float8 - least(r.n, floor($3::float8)), r.n <= floor($3::float8), now()
               FROM r WHERE r.key NOT IN (SELECT key FROM old)
              ORDER BY r.key
             ON CONFLICT (key) DO NOTHING
             RETURNING key
           )
           SELECT key, refilled, granted FROM took
           UNION ALL
           SELECT r.key, $3::float8, least(r.n, floor($3::float8))::integer FROM r JOIN ins USING (key)`,
          [missing.map(([k]) => k), perSecond, burst, missing.map(([, n]) => n)],
        ),
      );
      for (const row of rows) took.set(row.key, { refilled: Number(row.refilled), granted: Number(row.granted) });
    }
    // The requests on one bucket take its tokens in the order they arrived.
    const taken = new Map<string, number>();
    return keys.map((k) => {
      const { refilled, granted } = took.get(k)!;
      const i = taken.get(k) ?? 0;
      taken.set(k, i + 1);
      return i < granted
        ? { allowed: true, tokens: refilled - (i + 1) }
        : { allowed: false, tokens: refilled - granted };
    });
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
