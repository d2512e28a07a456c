import { Module } from '@nestjs/common';
import { PassportModule } from '@nestjs/passport';
import { AccountBearerStrategy } from './account-bearer.strategy';
import { AccountTokenGuard } from './account-token.guard';
import { AccountsRepository } from './accounts.repository';

/** Connected accounts and their bearer tokens; import it to put `AccountTokenGuard` on a controller. */
@Module({
  imports: [PassportModule.register({ session: false })],
  providers: [AccountsRepository, AccountBearerStrategy, AccountTokenGuard],
  exports: [AccountsRepository, AccountTokenGuard],
})
export class AccountsModule {}
