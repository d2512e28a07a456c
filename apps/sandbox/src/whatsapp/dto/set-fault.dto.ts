import { IsIn, IsOptional, IsString, Matches } from 'class-validator';
import { FaultSwitchDto } from '../../faults/fault-switch.dto';
import type { FaultMode, FaultScope } from '../messages.service';

export class SetFaultDto extends FaultSwitchDto {
  /** 429: Graph 130429 with Retry-After; 500: Graph 131000; hang: no answer until the client gives up. */
  @IsIn(['429', '500', 'hang'])
  mode!: FaultMode;

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
