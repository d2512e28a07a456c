import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { BillingModule } from '../billing/billing.module';
import { UsageModule } from '../usage/usage.module';
import { GatewayAccountRpcController } from './gateway-account.rpc.controller';
import { UsersController } from './users.controller';
import { UsersService } from './users.service';

/** A user's balance, transactions and usage (the users repository itself lives in the auth module). */
@Module({
  imports: [AuthModule, RateLimitModule, BillingModule, UsageModule],
  controllers: [UsersController, GatewayAccountRpcController],
  providers: [UsersService],
})
export class UsersModule {}
