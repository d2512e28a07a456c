import { Module } from '@nestjs/common';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { HousekeepingService } from './housekeeping.service';

/** Periodic clean-up of request bookkeeping (the rate-limit repository comes from its global module). */
@Module({
  imports: [IdempotencyModule],
  providers: [HousekeepingService],
  exports: [HousekeepingService],
})
export class HousekeepingModule {}
