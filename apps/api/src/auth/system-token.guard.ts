import { ExecutionContext, Injectable } from '@nestjs/common';
import { AuthGuard } from '@nestjs/passport';
import { ForbiddenProblem, UnauthorizedProblem } from '@app/server';
import { AuthenticatedUser } from './authenticated-user';

/**
 * Every endpoint of the spec needs a system user's token: missing, malformed, unknown or revoked
 * tokens get 401 with `WWW-Authenticate: Bearer`; a real user's (valid) token gets 403.
 */
@Injectable()
export class SystemTokenGuard extends AuthGuard('bearer') {
  override async canActivate(context: ExecutionContext): Promise<boolean> {
    await super.canActivate(context);
    const user = context.switchToHttp().getRequest<{ user?: AuthenticatedUser }>().user;
    if (user?.kind !== 'system') {
      throw new ForbiddenProblem('This endpoint needs a system user token; a user token is not enough.');
    }
    return true;
  }

  override handleRequest<T = AuthenticatedUser>(err: unknown, user: T | false): T {
    if (err || !user) throw new UnauthorizedProblem('A valid bearer token is required.');
    return user;
  }
}
