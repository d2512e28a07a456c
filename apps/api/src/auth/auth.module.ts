import { Module } from '@nestjs/common';
import { PassportModule } from '@nestjs/passport';
import { UsersRepository } from '../users/users.repository';
import { BearerStrategy } from './bearer.strategy';
import { SystemTokenGuard } from './system-token.guard';

/** Bearer-token authentication for every API endpoint; use `@UseGuards(SystemTokenGuard)`. */
@Module({
  imports: [PassportModule.register({ session: false })],
  providers: [UsersRepository, BearerStrategy, SystemTokenGuard],
  exports: [UsersRepository, SystemTokenGuard],
})
export class AuthModule {}
