import { Module } from '@nestjs/common';
import { Clock } from '@app/server';
import { AccountsModule } from '../accounts/accounts.module';
import { BillingController, WebhooksController } from './account-api.controller';
import { AccountApiService } from './account-api.service';
import { WhatsAppSignupsController } from './whatsapp-signups.controller';
import { WhatsAppSignupsService } from './whatsapp-signups.service';

/** The account's api user's balance, transactions, webhook subscriptions and WhatsApp signups, through the gateway. */
@Module({
  imports: [AccountsModule],
  controllers: [BillingController, WebhooksController, WhatsAppSignupsController],
  providers: [AccountApiService, WhatsAppSignupsService, Clock],
})
export class AccountApiModule {}
