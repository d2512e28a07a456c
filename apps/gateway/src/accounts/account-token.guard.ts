import { Injectable } from '@nestjs/common';
import { AuthGuard } from '@nestjs/passport';
import { UnauthorizedProblem } from '@app/server';
import { AuthenticatedAccount } from './authenticated-account';

/**
 * Every gateway endpoint but health, channel callbacks and the pixel needs a connected account's
 * token: missing, malformed, unknown or revoked tokens get 401 with `WWW-Authenticate: Bearer`.
 */
@Injectable()
export class AccountTokenGuard extends AuthGuard('account-bearer') {
  override handleRequest<T = AuthenticatedAccount>(err: unknown, account: T | false): T {
    if (err || !account) throw new UnauthorizedProblem('A valid gateway account token is required.');
    return account;
  }
}
