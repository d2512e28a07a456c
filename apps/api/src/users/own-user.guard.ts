import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { ForbiddenProblem } from '@app/server';
import type { AuthenticatedUser } from '../auth';

/** `/v1/users/{userId}/...`: only the caller's own user id; anything else is 403 (before any validation). */
@Injectable()
export class OwnUserGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<{ user?: AuthenticatedUser; params: { userId?: string } }>();
    if (!request.user || request.params.userId !== request.user.id) {
      throw new ForbiddenProblem("A token may only read its own user's balance, transactions and usage.");
    }
    return true;
  }
}
