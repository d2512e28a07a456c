import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { PeriodicJob } from '@app/server';
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
  private readonly job: PeriodicJob<{ idempotencyKeys: number; rateLimitBuckets: number }>;

  constructor(
    private readonly config: ApiConfig,
    private readonly idempotency: IdempotencyRepository,
    private readonly rateLimits: RateLimitRepository,
  ) {
    this.job = new PeriodicJob('housekeeping', config.HOUSEKEEPING_INTERVAL_MS, () => this.pass(), this.logger);
  }

  onApplicationBootstrap(): void {
    this.job.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.job.stop();
  }

  /** One pass (or the one under way); returns what it deleted. */
  sweep(): Promise<{ idempotencyKeys: number; rateLimitBuckets: number }> {
    return this.job.run();
  }

  private async pass(): Promise<{ idempotencyKeys: number; rateLimitBuckets: number }> {
    const refillSeconds = Math.ceil(this.config.RATE_LIMIT_BURST / this.config.RATE_LIMIT_PER_SECOND);
    const idempotencyKeys = await this.idempotency.sweep(this.config.IDEMPOTENCY_TTL_HOURS);
    // At least a minute idle, so busy tokens' rows are not churned.
    const rateLimitBuckets = await this.rateLimits.sweep(Math.max(60, refillSeconds + 1));
    if (idempotencyKeys || rateLimitBuckets) this.logger.log({ idempotencyKeys, rateLimitBuckets }, 'housekeeping');
    return { idempotencyKeys, rateLimitBuckets };
  }
}
