import { Module } from '@nestjs/common';
import { BalancesRepository } from './balances.repository';
import { BillingService } from './billing.service';
import { MessagePrices } from './message-prices';

/** Balances, holds, charges and the price table; money moves only through BillingService. */
@Module({
  providers: [BalancesRepository, BillingService, MessagePrices],
  exports: [BillingService, BalancesRepository, MessagePrices],
})
export class BillingModule {}
