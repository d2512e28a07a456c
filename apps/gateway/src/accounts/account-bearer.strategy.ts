import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-http-bearer';
import { isWellFormedToken } from '@app/auth';
import { AccountsRepository } from './accounts.repository';
import { AuthenticatedAccount } from './authenticated-account';

/** Resolves `Authorization: Bearer <token>` to the connected account it belongs to (unknown or revoked: none). */
@Injectable()
export class AccountBearerStrategy extends PassportStrategy(Strategy, 'account-bearer') {
  constructor(private readonly accounts: AccountsRepository) {
    super();
  }

  async validate(token: string): Promise<AuthenticatedAccount | false> {
    if (!isWellFormedToken(token)) return false;
    const account = await this.accounts.findByToken(token);
    return account
      ? {
          id: account.id,
          name: account.name,
          userId: account.userId,
          timeZone: account.timeZone,
          defaultRegion: account.defaultRegion,
        }
      : false;
  }
}
