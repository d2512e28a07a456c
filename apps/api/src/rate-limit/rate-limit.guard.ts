import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { limitAuthenticatedRequest, RateLimitRepository } from '@app/database';
import { ApiConfig } from '../config';

/**
 * Per-token request rate, shared by every api replica through Postgres. Put it after the
 * authentication guard: `@UseGuards(SystemTokenGuard, RateLimitGuard)`. Every answer carries the
 * RateLimit fields; a refused request gets 429 with Retry-After.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(
    private readonly buckets: RateLimitRepository,
    private readonly config: ApiConfig,
  ) {}

  canActivate(context: ExecutionContext): Promise<boolean> {
    return limitAuthenticatedRequest(context, this.buckets, this.config);
  }
}
