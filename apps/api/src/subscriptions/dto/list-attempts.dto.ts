import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { SUBSCRIPTION_LIMITS } from '@app/contracts';

export class ListAttemptsDto {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(SUBSCRIPTION_LIMITS.listMax)
  limit?: number;
}
