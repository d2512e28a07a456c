import { ApiProperty } from '@nestjs/swagger';

/**
 * A time the gateway answers: integer Unix seconds, as every time in its answers and events is
 * (calendar days, such as a usage report's, are dates and stay YYYY-MM-DD).
 */
export function ApiUnixSeconds(
  opts: { nullable?: boolean; optional?: boolean; description?: string } = {},
): PropertyDecorator {
  return ApiProperty({
    type: 'integer',
    ...(opts.nullable ? { nullable: true } : {}),
    ...(opts.optional ? { required: false } : {}),
    example: 1763700000,
    description: opts.description ? `Unix seconds: ${opts.description}` : 'Unix seconds',
  });
}
