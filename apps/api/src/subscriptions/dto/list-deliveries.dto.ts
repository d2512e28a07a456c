import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { DELIVERY_STATUSES, DeliveryStatus } from '@app/contracts';
import { ListAttemptsDto } from './list-attempts.dto';

/** The same paging as attempts, plus a status filter. */
export class ListDeliveriesDto extends ListAttemptsDto {
  @ApiPropertyOptional({ enum: DELIVERY_STATUSES, description: 'Only deliveries in this status' })
  @IsOptional()
  @IsIn(DELIVERY_STATUSES)
  status?: DeliveryStatus;
}
