import { IsIn, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import type { FaultMode, FaultScope } from '../messages.service';

export class SetFaultDto {
  /** 429: Graph 130429 with Retry-After; 500: Graph 131000; hang: no answer until the client gives up. */
  @IsIn(['429', '500', 'hang'])
  mode!: FaultMode;

  /** How many requests the fault answers; omitted: until cleared. */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100000)
  count?: number;

  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(3600)
  retry_after_seconds?: number;

  /** Which endpoints: message sends (default), template management, or both. */
  @IsOptional()
  @IsIn(['messages', 'templates', 'all'])
  scope?: FaultScope;

  /** Only sends from this business number. */
  @IsOptional()
  @IsString()
  @Matches(/^\d{1,32}$/)
  phone_number_id?: string;
}
