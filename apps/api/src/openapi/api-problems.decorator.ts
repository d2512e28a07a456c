import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth } from '@nestjs/swagger';
import { problemDecorator } from '@app/server';

/** Error answers of an endpoint, each an application/problem+json body. */
export const ApiProblems = problemDecorator({
  403: 'Access denied: not a system-user token, or another tenant’s resource',
  410: 'Gone: the onboarding link expired or has already connected a number',
  429: 'Too many requests: the token’s rate limit (or the app’s messaging tier); see Retry-After',
});

/**
 * A system user's bearer token is required (docs/decisions.md, Tokens and tenancy); every such route is
 * rate limited per token, and answers 503 when the token cannot be checked.
 */
export function ApiSystemToken(): MethodDecorator & ClassDecorator {
  return applyDecorators(ApiBearerAuth('bearer'), ApiProblems(401, 403, 429, 503));
}

/** The onboarding link's token (query `t` of embed_link_url) is the credential. */
export const LINK_TOKEN_SCHEME = 'link';
