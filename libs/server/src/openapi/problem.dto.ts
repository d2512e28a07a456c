import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class FieldErrorDto {
  @ApiProperty({ example: 'name' })
  field: string;

  @ApiProperty({ example: 'name must be longer than or equal to 5 characters' })
  message: string;
}

/** RFC 9457 problem details, the body of every error (application/problem+json). */
export class ProblemDto {
  @ApiProperty({ example: '/problems/validation-error', description: 'Documented in docs/errors.md' })
  type: string;

  @ApiProperty({ example: 'Invalid request' })
  title: string;

  @ApiProperty({ example: 400 })
  status: number;

  @ApiPropertyOptional({ example: 'The request is not valid.' })
  detail?: string;

  @ApiPropertyOptional({ example: '/v1/messages' })
  instance?: string;

  @ApiPropertyOptional({ type: [FieldErrorDto], description: 'Validation problems only' })
  errors?: FieldErrorDto[];
}
