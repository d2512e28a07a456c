import { Module } from '@nestjs/common';
import { PassportModule } from '@nestjs/passport';
import { RateLimitRepository } from '@app/database';
import { AccountRateLimitGuard } from './account-rate-limit.guard';
import { AccountBearerStrategy } from './account-bearer.strategy';
import { AccountTokenGuard } from './account-token.guard';
import { AccountsRepository } from './accounts.repository';

/** Connected accounts and their bearer tokens; import it to put `AccountTokenGuard` and `AccountRateLimitGuard` on a controller. */
@Module({
  imports: [PassportModule.register({ session: false })],
  providers: [AccountsRepository, AccountBearerStrategy, AccountTokenGuard, RateLimitRepository, AccountRateLimitGuard],
  exports: [AccountsRepository, AccountTokenGuard, RateLimitRepository, AccountRateLimitGuard],
})
export class AccountsModule {}
