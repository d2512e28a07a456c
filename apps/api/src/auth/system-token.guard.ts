import { ExecutionContext, Injectable } from '@nestjs/common';
import { AuthGuard } from '@nestjs/passport';
import { ForbiddenProblem, ProblemError, UnauthorizedProblem } from '@app/server';
import { AuthenticatedUser } from './authenticated-user';
import { refuseTokenOutsideHeader } from './bearer-token';

/**
 * Every endpoint of the public API needs a system user's token: missing, malformed, unknown or revoked
 * tokens get 401 with `WWW-Authenticate: Bearer`; a real user's (valid) token gets 403. The token
 * is read from the Authorization header only: `access_token` in the query or body is a 401.
 */
@Injectable()
export class SystemTokenGuard extends AuthGuard('bearer') {
  override async canActivate(context: ExecutionContext): Promise<boolean> {
    refuseTokenOutsideHeader(context.switchToHttp().getRequest());
    await super.canActivate(context);
    const user = context.switchToHttp().getRequest<{ user?: AuthenticatedUser }>().user;
    if (user?.kind !== 'system') {
      throw new ForbiddenProblem('This endpoint needs a system user token; a user token is not enough.');
    }
    return true;
  }

  override handleRequest<T = AuthenticatedUser>(err: unknown, user: T | false): T {
    // A problem raised by the strategy (the token store is unavailable: 503) is not a bad token.
    if (err instanceof ProblemError) throw err;
    if (err || !user) throw new UnauthorizedProblem('A valid bearer token is required.');
    return user;
  }
}
