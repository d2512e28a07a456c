import { Module } from '@nestjs/common';
import { IdempotencyRepository } from './idempotency.repository';
import { IdempotencyService } from './idempotency.service';

/** Stored answers for requests sent with an Idempotency-Key. */
@Module({
  providers: [IdempotencyRepository, IdempotencyService],
  exports: [IdempotencyService, IdempotencyRepository],
})
export class IdempotencyModule {}
