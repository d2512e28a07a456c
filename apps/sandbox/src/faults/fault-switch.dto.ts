import { IsInt, IsOptional, Max, Min } from 'class-validator';

/** What every emulator's fault switch takes besides its mode: how many requests, and the retry-after of a 429. */
export class FaultSwitchDto {
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
}
