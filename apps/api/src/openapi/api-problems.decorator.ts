import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiResponse, getSchemaPath, ApiExtraModels } from '@nestjs/swagger';
import { ProblemDto } from './problem.dto';

const DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request, validation error',
  401: 'Authentication error: missing, malformed, unknown or revoked token',
  403: 'Access denied: not a system-user token, or another tenant’s resource',
  404: 'Not found',
  409: 'Conflict',
  410: 'Gone: the onboarding link expired or has already connected a number',
  413: 'Body larger than 256 KiB',
  415: 'Body is not application/json',
  422: 'Request cannot be processed in the resource’s current state',
  429: 'Too many requests: the token’s rate limit (or the app’s messaging tier); see Retry-After',
  503: 'A dependency (database, broker, channel) could not be reached; nothing was changed; see Retry-After',
};

/** Error answers of an endpoint, each an application/problem+json body. */
export function ApiProblems(...statuses: number[]): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ApiExtraModels(ProblemDto),
    ...statuses.map((status) =>
      ApiResponse({
        status,
        description: DESCRIPTIONS[status] ?? 'Error',
        content: { 'application/problem+json': { schema: { $ref: getSchemaPath(ProblemDto) } } },
      }),
    ),
  );
}

/**
 * A system user's bearer token is required (docs/decisions.md, Tokens and tenancy); every such route is
 * rate limited per token, and answers 503 when the token cannot be checked.
 */
export function ApiSystemToken(): MethodDecorator & ClassDecorator {
  return applyDecorators(ApiBearerAuth('bearer'), ApiProblems(401, 403, 429, 503));
}

/** The onboarding link's token (query `t` of embed_link_url) is the credential. */
export const LINK_TOKEN_SCHEME = 'link';
