import { Module } from '@nestjs/common';
import { Clock } from '@app/server';
import { AccountsModule } from '../accounts/accounts.module';
import { BillingController, WebhooksController } from './account-api.controller';
import { AccountApiService } from './account-api.service';

/** The account's api user's balance, transactions and webhook subscriptions, through the gateway. */
@Module({
  imports: [AccountsModule],
  controllers: [BillingController, WebhooksController],
  providers: [AccountApiService, Clock],
})
export class AccountApiModule {}
