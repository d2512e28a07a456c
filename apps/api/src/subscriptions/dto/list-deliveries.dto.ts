import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { DELIVERY_STATUSES, DeliveryStatus, SUBSCRIPTION_LIMITS } from '@app/contracts';

export class ListDeliveriesDto {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(SUBSCRIPTION_LIMITS.listMax)
  limit?: number;

  @IsOptional()
  @IsIn(DELIVERY_STATUSES)
  status?: DeliveryStatus;
}
