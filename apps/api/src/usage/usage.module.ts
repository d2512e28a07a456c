import { Module } from '@nestjs/common';
import { UsageRepository } from './usage.repository';
import { UsageService } from './usage.service';

/** The usage report (its counters are written by the messages and billing statements they count). */
@Module({
  providers: [UsageRepository, UsageService],
  exports: [UsageService],
})
export class UsageModule {}
