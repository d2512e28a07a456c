import { CanActivate, createParamDecorator, ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ConsoleAuth, ConsoleRequest } from './console-auth';
import { ConsoleRole } from './console-roles';
import { ConsoleSession } from './console-sessions.repository';

const ROLE_NEEDED = 'console:role-needed';

/** The least role a console route needs (none said: any signed-in user). */
export const ConsoleRoleNeeded = (role: ConsoleRole) => SetMetadata(ROLE_NEEDED, role);

/**
 * The console's own routes (/console/api): a live session, its CSRF token on every change, and
 * the role the route names.
 */
@Injectable()
export class ConsoleSessionGuard implements CanActivate {
  constructor(
    private readonly auth: ConsoleAuth,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const needed =
      this.reflector.getAllAndOverride<ConsoleRole | undefined>(ROLE_NEEDED, [
        context.getHandler(),
        context.getClass(),
      ]) ?? 'viewer';
    await this.auth.authorize(context.switchToHttp().getRequest<ConsoleRequest>(), needed);
    return true;
  }
}

/** Injects the request's console session (after ConsoleSessionGuard); marks its change as audited by the handler. */
export const CurrentSession = createParamDecorator((_: unknown, ctx: ExecutionContext): ConsoleSession => {
  const request = ctx.switchToHttp().getRequest<ConsoleRequest>();
  request.consoleAudited = true;
  return request.consoleSession!;
});
