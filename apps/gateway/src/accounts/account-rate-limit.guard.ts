import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { limitAuthenticatedRequest, RateLimitRepository } from '@app/database';
import { GatewayConfig } from '../config';

/**
 * The per-token request rate of account tokens, as the api's: RATE_LIMIT_PER_SECOND with a
 * RATE_LIMIT_BURST bucket, shared by every gateway replica through Postgres; every answer carries
 * the RateLimit fields, a refused request gets 429 with Retry-After. Put it after
 * `AccountTokenGuard`, so only an authenticated token has a bucket.
 */
@Injectable()
export class AccountRateLimitGuard implements CanActivate {
  constructor(
    private readonly buckets: RateLimitRepository,
    private readonly config: GatewayConfig,
  ) {}

  canActivate(context: ExecutionContext): Promise<boolean> {
    return limitAuthenticatedRequest(context, this.buckets, this.config);
  }
}
