import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth } from '@nestjs/swagger';
import { problemDecorator } from '@app/server';

/** Error answers of a gateway endpoint, each an application/problem+json body. */
export const ApiProblems = problemDecorator({
  401: 'Authentication error: missing, malformed, unknown or revoked account token',
  403: 'Access denied: another account’s resource',
});

/** The bearer scheme of the gateway's account tokens. */
export const ACCOUNT_TOKEN_SCHEME = 'account';

/**
 * A gateway account's token is required (docs/gateway.md, Accounts and tokens); every such route is
 * rate limited per token, and answers 503 when the token cannot be checked.
 */
export function ApiAccountToken(): MethodDecorator & ClassDecorator {
  return applyDecorators(ApiBearerAuth(ACCOUNT_TOKEN_SCHEME), ApiProblems(401, 429, 503));
}
