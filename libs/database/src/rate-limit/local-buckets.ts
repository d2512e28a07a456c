import type { BucketState } from './rate-limit.repository';

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * Token buckets kept in this process, for traffic that must not cost a database statement per
 * request (unauthenticated endpoints: the pixel, channel callbacks): each key refills at
 * `perSecond` up to `burst`. At most `maxKeys` buckets are kept; past that the least recently used
 * is forgotten (it would have been full again soon, and a flood of new keys cannot grow memory).
 * Per replica, unlike RateLimitRepository: N replicas allow N times the rate.
 */
export class LocalBuckets {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly maxKeys: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  get size(): number {
    return this.buckets.size;
  }

  /** Takes one token from `key` (created full on first use); the same answer as RateLimitRepository.take. */
  take(key: string, perSecond: number, burst: number): Promise<BucketState> {
    return Promise.resolve(this.takeNow(key, perSecond, burst));
  }

  takeNow(key: string, perSecond: number, burst: number): BucketState {
    const at = this.now();
    const bucket = this.buckets.get(key);
    let tokens = burst;
    if (bucket) {
      tokens = Math.min(burst, bucket.tokens + (Math.max(0, at - bucket.at) / 1000) * perSecond);
      // Most recently used last: the first key of the map is the one to forget.
      this.buckets.delete(key);
    } else if (this.buckets.size >= this.maxKeys) {
      this.buckets.delete(this.buckets.keys().next().value as string);
    }
    const allowed = tokens >= 1;
    if (allowed) tokens -= 1;
    this.buckets.set(key, { tokens, at });
    return { allowed, tokens };
  }
}
