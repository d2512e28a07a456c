import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { AccountTokensRepository } from './account-tokens.repository';
import { TokensController } from './tokens.controller';

/** An account managing its own tokens over the API (and the console). */
@Module({
  imports: [AccountsModule],
  controllers: [TokensController],
  providers: [AccountTokensRepository],
})
export class TokensModule {}
