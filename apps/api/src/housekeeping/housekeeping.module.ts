import { Module } from '@nestjs/common';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { SendingModule } from '../sending';
import { HousekeepingService } from './housekeeping.service';

/** Periodic clean-up of request bookkeeping and of the messaging tier's window. */
@Module({
  imports: [RateLimitModule, IdempotencyModule, SendingModule],
  providers: [HousekeepingService],
  exports: [HousekeepingService],
})
export class HousekeepingModule {}
