import { Injectable } from '@nestjs/common';
import { PeriodicService } from '@app/server';
import { ApiConfig } from '../config';
import { IdempotencyRepository } from '../idempotency/idempotency.repository';
import { TierWindowRepository } from '../sending';
import { RateLimitRepository } from '@app/database';

export interface Swept {
  idempotencyKeys: number;
  rateLimitBuckets: number;
  /** Recipients whose last template left the messaging tier's 24-hour window. */
  tierRecipients: number;
}

/**
 * Keeps the request-bookkeeping tables from growing without bound: idempotency keys past their
 * TTL, and rate-limit buckets idle long enough to be full again (deleting one changes nobody's
 * limit: a new bucket starts full), and recipients out of the tier's 24-hour window (the send
 * sweeps an app's own at its cap, so the tier stays exact in between). Every replica may run it; the deletes are idempotent.
 */
@Injectable()
export class HousekeepingService extends PeriodicService<Swept> {
  constructor(
    private readonly config: ApiConfig,
    private readonly idempotency: IdempotencyRepository,
    private readonly rateLimits: RateLimitRepository,
    private readonly tierWindow: TierWindowRepository,
  ) {
    super('housekeeping', config.HOUSEKEEPING_INTERVAL_MS);
  }

  /** One pass (or the one under way); returns what it deleted. */
  sweep(): Promise<Swept> {
    return this.runNow();
  }

  protected async pass(): Promise<Swept> {
    const refillSeconds = Math.ceil(this.config.RATE_LIMIT_BURST / this.config.RATE_LIMIT_PER_SECOND);
    const idempotencyKeys = await this.idempotency.sweep(this.config.IDEMPOTENCY_TTL_HOURS);
    // At least a minute idle, so busy tokens' rows are not churned.
    const rateLimitBuckets = await this.rateLimits.sweep(Math.max(60, refillSeconds + 1));
    const tierRecipients = await this.tierWindow.sweep();
    const swept = { idempotencyKeys, rateLimitBuckets, tierRecipients };
    if (idempotencyKeys || rateLimitBuckets || tierRecipients) this.logger.log(swept, 'housekeeping');
    return swept;
  }
}
