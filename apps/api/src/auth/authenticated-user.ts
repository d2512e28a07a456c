import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { TokenKind } from '@app/auth';

/** Who is calling: the user behind the bearer token. */
export interface AuthenticatedUser {
  id: string;
  name: string;
  kind: TokenKind;
  currency: string;
}

/** Injects the authenticated caller into a handler. */
export const CurrentUser = createParamDecorator((_: unknown, ctx: ExecutionContext): AuthenticatedUser => {
  return ctx.switchToHttp().getRequest<{ user: AuthenticatedUser }>().user;
});
