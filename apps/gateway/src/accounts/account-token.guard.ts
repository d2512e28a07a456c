import { ExecutionContext, Injectable, Optional } from '@nestjs/common';
import { AuthGuard, AuthModuleOptions } from '@nestjs/passport';
import { UnauthorizedProblem } from '@app/server';
import { ConsoleAuth, ConsoleRequest } from '../console/console-auth';
import { roleNeededFor } from '../console/console-roles';
import { AuthenticatedAccount } from './authenticated-account';

/**
 * Every gateway endpoint but health, channel callbacks and the pixel needs a connected account's
 * token: missing, malformed, unknown or revoked tokens get 401 with `WWW-Authenticate: Bearer`.
 * A request without an Authorization header but with a console session cookie is the console's
 * (docs/console.md): its session must be live, a change must carry the session's X-CSRF-Token, and
 * its user's role must allow the route.
 */
@Injectable()
export class AccountTokenGuard extends AuthGuard('account-bearer') {
  constructor(
    private readonly console: ConsoleAuth,
    @Optional() options?: AuthModuleOptions,
  ) {
    super(options);
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<ConsoleRequest & { user?: AuthenticatedAccount }>();
    if (request.headers.authorization === undefined && this.console.hasCookie(request)) {
      const route = request.routeOptions.url ?? request.url;
      request.user = (await this.console.authorize(request, roleNeededFor(request.method, route))).account;
      return true;
    }
    return (await super.canActivate(context)) as boolean;
  }

  override handleRequest<T = AuthenticatedAccount>(err: unknown, account: T | false): T {
    if (err || !account) throw new UnauthorizedProblem('A valid gateway account token is required.');
    return account;
  }
}
