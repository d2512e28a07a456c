import { ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { IsBoolean, IsOptional } from 'class-validator';
import { CreateSubscriptionDto } from './create-subscription.dto';

/** Every field of a subscription, each optional: what is omitted is kept. */
export class UpdateSubscriptionDto extends PartialType(CreateSubscriptionDto) {
  /** true re-enables a disabled subscription; false disables it. */
  @ApiPropertyOptional({ description: 'true re-enables a disabled subscription; false disables it' })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;
}
