import { Global, Module } from '@nestjs/common';
import { BalancesRepository } from './balances.repository';
import { MessagePrices } from './message-prices';

/** Balances, holds, charges and the price table. */
@Global()
@Module({
  providers: [BalancesRepository, MessagePrices],
  exports: [BalancesRepository, MessagePrices],
})
export class BillingModule {}
