import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { SUBSCRIPTION_LIMITS } from '@app/contracts';

export class ListAttemptsDto {
  @ApiPropertyOptional({
    minimum: 1,
    maximum: SUBSCRIPTION_LIMITS.listMax,
    default: SUBSCRIPTION_LIMITS.listDefault,
    description: 'How many, newest first',
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(SUBSCRIPTION_LIMITS.listMax)
  limit?: number;
}
