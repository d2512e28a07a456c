import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { ConsoleAuditRepository } from './console-audit.repository';
import { ConsoleLockoutRepository } from './console-lockout.repository';
import { ConsoleSessionController } from './console-session.controller';
import { ConsoleSessionGuard } from './console-session.guard';
import { ConsoleUsersController } from './console-users.controller';
import { ConsoleUsersRepository } from './console-users.repository';
import { ConsoleService } from './console.service';

/** The console's server side: its users, sessions, invitations and audit log (docs/console.md). */
@Module({
  imports: [AccountsModule],
  controllers: [ConsoleSessionController, ConsoleUsersController],
  providers: [
    ConsoleUsersRepository,
    ConsoleLockoutRepository,
    ConsoleAuditRepository,
    ConsoleService,
    ConsoleSessionGuard,
  ],
  exports: [ConsoleAuditRepository, ConsoleUsersRepository, ConsoleService],
})
export class ConsoleModule {}
