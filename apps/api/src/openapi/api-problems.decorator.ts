import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiResponse, getSchemaPath, ApiExtraModels } from '@nestjs/swagger';
import { ProblemDto } from './problem.dto';

const DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request, validation error',
  401: 'Authentication error: missing, malformed, unknown or revoked token',
  403: 'Access denied: not a system-user token, or another tenant’s resource',
  404: 'Not found',
  409: 'Conflict',
  413: 'Body larger than 1 MiB',
  415: 'Body is not application/json',
  422: 'Request cannot be processed in the resource’s current state',
  503: 'The channel could not be reached; nothing was changed',
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

/** A system-user bearer token is required (section 5 of the spec). */
export function ApiSystemToken(): MethodDecorator & ClassDecorator {
  return applyDecorators(ApiBearerAuth('bearer'), ApiProblems(401));
}
