import { Module } from '@nestjs/common';
import { UsersController } from './users.controller';
import { UsersService } from './users.service';

/** A user's balance and transactions (the users repository itself lives in the auth module). */
@Module({
  controllers: [UsersController],
  providers: [UsersService],
})
export class UsersModule {}
