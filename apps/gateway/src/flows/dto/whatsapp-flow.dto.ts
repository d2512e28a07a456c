import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches } from 'class-validator';
import { ChannelFlow, ChannelFlowPage, FLOW_STATUSES } from '@app/contracts';
import { ApiNextCursor } from '../../paging/cursor-page.dto';

/** `GET /v1/flows`: a page of the linked app's Flows. */
export class ListWhatsAppFlowsDto {
  @ApiPropertyOptional({ description: 'The next_cursor of the previous page' })
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9_=+/-]{1,512}$/, { message: 'cursor must be the next_cursor of a previous page' })
  cursor?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 50 })
  @IsOptional()
  @Matches(/^(100|[1-9][0-9]?)$/, { message: 'limit must be a whole number from 1 to 100' })
  limit?: string;
}

/** A Flow of the linked WhatsApp app's business account. */
export class WhatsAppFlowDto implements ChannelFlow {
  @ApiProperty({
    example: '1234567890123456',
    description: "The Flow id: a `flow` content's `flow_id`, a FLOW button's",
  })
  id: string;

  @ApiProperty({ example: 'appointment_booking' })
  name: string;

  @ApiProperty({
    enum: FLOW_STATUSES,
    example: 'PUBLISHED',
    description: 'Only a PUBLISHED Flow reaches customers; only a DRAFT can be published',
  })
  status: string;

  @ApiProperty({ type: [String], example: ['APPOINTMENT_BOOKING'] })
  categories: string[];
}

export class WhatsAppFlowPageDto implements ChannelFlowPage {
  @ApiProperty({ type: [WhatsAppFlowDto] })
  data: WhatsAppFlowDto[];

  @ApiNextCursor()
  next_cursor: string | null;
}

/** The answer of a publish: the Flow's id and its new status. */
export class PublishedWhatsAppFlowDto {
  @ApiProperty({ example: '1234567890123456' })
  id: string;

  @ApiProperty({ enum: ['PUBLISHED'] })
  status: 'PUBLISHED';
}
