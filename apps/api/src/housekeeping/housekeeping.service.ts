import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { ApiConfig } from '../config';
import { IdempotencyRepository } from '../idempotency/idempotency.repository';
import { RateLimitRepository } from '../rate-limit/rate-limit.repository';

/**
 * Keeps the request-bookkeeping tables from growing without bound: idempotency keys past their
 * TTL, and rate-limit buckets idle long enough to be full again (deleting one changes nobody's
 * limit: a new bucket starts full). Every replica may run it; the deletes are idempotent.
 */
@Injectable()
export class HousekeepingService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(HousekeepingService.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    private readonly config: ApiConfig,
    private readonly idempotency: IdempotencyRepository,
    private readonly rateLimits: RateLimitRepository,
  ) {}

  onApplicationBootstrap(): void {
    const every = this.config.HOUSEKEEPING_INTERVAL_MS;
    if (every > 0) {
      this.timer = setInterval(
        () => void this.sweep().catch((err) => this.logger.warn({ err }, 'housekeeping failed')),
        every,
      );
      this.timer.unref();
    }
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** One pass; returns what it deleted. */
  async sweep(): Promise<{ idempotencyKeys: number; rateLimitBuckets: number }> {
    const refillSeconds = Math.ceil(this.config.RATE_LIMIT_BURST / this.config.RATE_LIMIT_PER_SECOND);
    const pass = (async () => {
      const idempotencyKeys = await this.idempotency.sweep(this.config.IDEMPOTENCY_TTL_HOURS);
      // At least a minute idle, so busy tokens' rows are not churned.
      const rateLimitBuckets = await this.rateLimits.sweep(Math.max(60, refillSeconds + 1));
      if (idempotencyKeys || rateLimitBuckets) this.logger.log({ idempotencyKeys, rateLimitBuckets }, 'housekeeping');
      return { idempotencyKeys, rateLimitBuckets };
    })();
    this.running = pass.then(() => undefined);
    return pass;
  }
}
