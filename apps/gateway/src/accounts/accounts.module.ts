import { Module } from '@nestjs/common';
import { PassportModule } from '@nestjs/passport';
import { RateLimitRepository } from '@app/database';
import { ConsoleAuth } from '../console/console-auth';
import { ConsoleSessionsRepository } from '../console/console-sessions.repository';
import { AccountRateLimitGuard } from './account-rate-limit.guard';
import { AccountBearerStrategy } from './account-bearer.strategy';
import { AccountTokenGuard } from './account-token.guard';
import { AccountsRepository } from './accounts.repository';

/**
 * Connected accounts and their bearer tokens (and the console sessions that stand in for a token);
 * import it to put `AccountTokenGuard` and `AccountRateLimitGuard` on a controller.
 */
@Module({
  imports: [PassportModule.register({ session: false })],
  providers: [
    AccountsRepository,
    AccountBearerStrategy,
    AccountTokenGuard,
    RateLimitRepository,
    AccountRateLimitGuard,
    ConsoleSessionsRepository,
    ConsoleAuth,
  ],
  exports: [
    AccountsRepository,
    AccountTokenGuard,
    RateLimitRepository,
    AccountRateLimitGuard,
    ConsoleSessionsRepository,
    ConsoleAuth,
  ],
})
export class AccountsModule {}
