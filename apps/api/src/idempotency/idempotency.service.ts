import { Injectable, Logger } from '@nestjs/common';
import { ConflictProblem, parseIdempotencyKey, ProblemError, UnprocessableProblem } from '@app/server';
import { ApiConfig } from '../config';
import { IdempotencyRepository } from './idempotency.repository';

export interface IdempotentAnswer<T> {
  status: number;
  body: T;
  /** True when this is the stored answer of an earlier request with the same key. */
  replayed: boolean;
}

export { canonicalJson, requestHash } from '@app/server';

/**
 * `Idempotency-Key`: the first successful answer to a request is stored per (user, key) and
 * replayed to every repeat with the same method, path and body; the same key with another
 * request is refused. A request that fails gives its key up, so it can be retried.
 */
@Injectable()
export class IdempotencyService {
  private readonly logger = new Logger(IdempotencyService.name);

  constructor(
    private readonly keys: IdempotencyRepository,
    private readonly config: ApiConfig,
  ) {}

  /** Validates the header value; undefined when absent. */
  parseKey(raw: string | string[] | undefined): string | undefined {
    return parseIdempotencyKey(raw);
  }

  /**
   * Runs `work` once per key. The key in progress is leased: renewed while this request runs, so
   * when its process dies (or loses the database) before answering, a retry takes it over within
   * IDEMPOTENCY_LEASE_SECONDS: `recover` says what that request achieved (its answer, when it did
   * commit), else the work runs again.
   */
  async run<T>(
    userId: string,
    key: string | undefined,
    hash: string,
    work: () => Promise<{ status: number; body: T }>,
    recover: () => Promise<{ status: number; body: T } | null> = async () => null,
  ): Promise<IdempotentAnswer<T>> {
    if (key === undefined) return { ...(await work()), replayed: false };
    if (!(await this.keys.claim(userId, key, hash, this.config.IDEMPOTENCY_TTL_HOURS))) {
      if (!(await this.keys.takeOverExpired(userId, key, hash, this.config.IDEMPOTENCY_LEASE_SECONDS))) {
        return this.replay<T>(userId, key, hash);
      }
      const recovered = await recover();
      if (recovered) {
        await this.keys.complete(userId, key, recovered.status, recovered.body);
        return { ...recovered, replayed: true };
      }
    }
    const lease = this.holdLease(userId, key);
    let answer: { status: number; body: T };
    try {
      answer = await work();
    } catch (err) {
      lease.stop();
      await this.keys.forget(userId, key);
      throw err;
    }
    lease.stop();
    await this.keys.complete(userId, key, answer.status, answer.body);
    return { ...answer, replayed: false };
  }

  /** Renews the key's lease every fifth of it until stopped; a renewal that fails is tried at the next tick. */
  private holdLease(userId: string, key: string): { stop: () => void } {
    const timer = setInterval(
      () =>
        void this.keys
          .renew(userId, key)
          .catch((err: unknown) => this.logger.warn({ err }, 'idempotency key lease not renewed')),
      (this.config.IDEMPOTENCY_LEASE_SECONDS * 1000) / 5,
    );
    timer.unref();
    return { stop: () => clearInterval(timer) };
  }

  private async replay<T>(userId: string, key: string, hash: string): Promise<IdempotentAnswer<T>> {
    const stored = await this.keys.find(userId, key);
    if (!stored) {
      // The first request failed and gave the key up between our claim and this read.
      throw new ConflictProblem(
        'idempotency-key-in-use',
        'Idempotency key in use',
        'A request with this Idempotency-Key just finished without success; retry it.',
      );
    }
    if (stored.requestHash !== hash) {
      throw new UnprocessableProblem(
        'idempotency-key-reuse',
        'Idempotency key reused',
        'This Idempotency-Key was used with a different request (method, path or body).',
      );
    }
    if (stored.state !== 'COMPLETED' || stored.responseStatus === null) {
      throw new ProblemError(
        409,
        'idempotency-key-in-use',
        'Idempotency key in use',
        'A request with this Idempotency-Key is still being processed; retry shortly.',
        {},
        { 'Retry-After': '1' },
      );
    }
    return { status: stored.responseStatus, body: stored.responseBody as T, replayed: true };
  }
}
