import { Module } from '@nestjs/common';
import { RateLimitGuard } from './rate-limit.guard';
import { RateLimitRepository } from '@app/database';

/** The per-token rate limit; any controller can use `@UseGuards(SystemTokenGuard, RateLimitGuard)`. */
@Module({
  providers: [RateLimitRepository, RateLimitGuard],
  exports: [RateLimitRepository, RateLimitGuard],
})
export class RateLimitModule {}
