import { randomUUID } from 'node:crypto';
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

/** Leases renewed by one statement at most. */
const RENEWED_AT_ONCE = 1000;

/**
 * A key held by the request running: its send commits under it only while `holder` (drawn by the
 * claim or takeover) still holds it.
 */
export interface KeyLease {
  key: string;
  hash: string;
  holder: string;
}

/** A send refused because a later request with its key took the key over while it ran. */
export function keyTakenOver(): ProblemError {
  return new ProblemError(
    409,
    'idempotency-key-in-use',
    'Idempotency key in use',
    'A later request with this Idempotency-Key took it over while this one ran; retry it for its answer.',
    {},
    { 'Retry-After': '1' },
  );
}

/**
 * `Idempotency-Key`: the first successful answer to a request is stored per (user, key) and
 * replayed to every repeat with the same method, path and body; the same key with another
 * request is refused. A request that fails gives its key up, so it can be retried.
 */
@Injectable()
export class IdempotencyService {
  private readonly logger = new Logger(IdempotencyService.name);
  /** The leases of this process's requests in progress, by holder. */
  private readonly held = new Map<string, { userId: string; key: string; holder: string }>();
  private renewals?: NodeJS.Timeout;
  private renewing = false;

  constructor(
    private readonly keys: IdempotencyRepository,
    private readonly config: ApiConfig,
  ) {}

  /** Validates the header value; undefined when absent. */
  parseKey(raw: string | string[] | undefined): string | undefined {
    return parseIdempotencyKey(raw);
  }

  /**
   * Runs `work` once per key, handing it the key's lease (null without a key) for its send to
   * commit under. The key in progress is leased: renewed while this request runs, so when its
   * process dies (or loses the database) before answering, a retry takes it over within
   * IDEMPOTENCY_LEASE_SECONDS: `recover` says what that request achieved (its answer, when it did
   * commit), else the work runs again. A request whose key was taken over cannot commit under it
   * any more (its send is refused); it is answered with what the key's send committed, if it has.
   */
  async run<T>(
    userId: string,
    key: string | undefined,
    hash: string,
    work: (lease: KeyLease | null) => Promise<{ status: number; body: T }>,
    recover: () => Promise<{ status: number; body: T } | null> = async () => null,
  ): Promise<IdempotentAnswer<T>> {
    if (key === undefined) return { ...(await work(null)), replayed: false };
    const lease: KeyLease = { key, hash, holder: randomUUID() };
    if (!(await this.keys.claim(userId, key, hash, this.config.IDEMPOTENCY_TTL_HOURS, lease.holder))) {
      if (!(await this.keys.takeOverExpired(userId, key, hash, this.config.IDEMPOTENCY_LEASE_SECONDS, lease.holder))) {
        return this.replay<T>(userId, key, hash);
      }
      const recovered = await recover();
      if (recovered) {
        await this.keys.complete(userId, key, lease.holder, recovered.status, recovered.body);
        return { ...recovered, replayed: true };
      }
    }
    const renewal = this.holdLease(userId, lease);
    let answer: { status: number; body: T };
    try {
      answer = await work(lease);
    } catch (err) {
      renewal.stop();
      // Given up only when nothing committed under it and it is still ours; otherwise its send
      // committed though the answer was lost, or a retry took it over: what holds the key answers.
      if (await this.keys.forget(userId, key, lease.holder)) throw err;
      const recovered = await recover();
      if (!recovered) throw err;
      const ours = await this.keys.complete(userId, key, lease.holder, recovered.status, recovered.body);
      return { ...recovered, replayed: !ours };
    }
    renewal.stop();
    await this.keys.complete(userId, key, lease.holder, answer.status, answer.body);
    return { ...answer, replayed: false };
  }

  /**
   * Holds the key's lease until stopped: the process renews every lease it holds every fifth of
   * the lease, all in one statement (RENEWED_AT_ONCE at most each), so that a thousand sends in
   * progress cost one statement a second rather than a thousand. A renewal that fails is tried at
   * the next tick; one still under way when the next is due lets that one pass.
   */
  private holdLease(userId: string, lease: KeyLease): { stop: () => void } {
    this.held.set(lease.holder, { userId, key: lease.key, holder: lease.holder });
    if (!this.renewals) {
      this.renewals = setInterval(() => void this.renewAll(), (this.config.IDEMPOTENCY_LEASE_SECONDS * 1000) / 5);
      this.renewals.unref();
    }
    return {
      stop: () => {
        this.held.delete(lease.holder);
        if (this.held.size === 0 && this.renewals) {
          clearInterval(this.renewals);
          this.renewals = undefined;
        }
      },
    };
  }

  private async renewAll(): Promise<void> {
    if (this.renewing) return;
    this.renewing = true;
    try {
      const leases = [...this.held.values()];
      for (let i = 0; i < leases.length; i += RENEWED_AT_ONCE) {
        await this.keys.renew(leases.slice(i, i + RENEWED_AT_ONCE));
      }
    } catch (err) {
      this.logger.warn({ err }, 'idempotency key leases not renewed');
    } finally {
      this.renewing = false;
    }
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
