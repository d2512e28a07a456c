import { ApiProperty } from '@nestjs/swagger';
import {
  MESSAGE_KINDS,
  MESSAGE_STATUSES,
  RENDERED_AS,
  type MessageCategory,
  type MessageStatus,
  type RenderedAs,
} from '@app/contracts';
import { MessageChargeDto, MessageFailureDto, MessageTimelineEntryDto } from '@app/server';
import type { MessageStatusView } from '../messages.service';

/** The answer of GET .../messages/{messageId}: status and timeline, never the content. */
export class MessageStatusDto extends MessageChargeDto implements MessageStatusView {
  @ApiProperty({ example: '019a8d6e-3b7c-7f11-9e2a-5b6c7d8e9f00' })
  id: string;

  @ApiProperty({ example: 'whatsapp' })
  channel: string;

  @ApiProperty({ enum: MESSAGE_STATUSES })
  status: MessageStatus;

  @ApiProperty({ enum: MESSAGE_KINDS })
  kind: string;

  @ApiProperty({ example: 'UTILITY' })
  category: MessageCategory;

  @ApiProperty({ type: String, nullable: true, example: '7999***1122', description: 'Masked' })
  recipient: string | null;

  @ApiProperty({ example: 0.02, description: 'The price held at send, by `category`' })
  price: number;

  @ApiProperty({ example: 'USD' })
  currency: string;

  @ApiProperty({ example: 1763700000, description: 'Unix seconds' })
  created_at: number;

  @ApiProperty({ example: 1763700005, description: 'Unix seconds' })
  updated_at: number;

  @ApiProperty({ type: MessageFailureDto, nullable: true })
  failure: { code: string | null; reason: string | null } | null;

  @ApiProperty({ type: [MessageTimelineEntryDto] })
  timeline: { status: string; timestamp: number }[];

  @ApiProperty({
    enum: RENDERED_AS,
    nullable: true,
    description: "A gateway content send: what its channel was asked to send; null for this API's sends and templates",
  })
  rendered_as: RenderedAs | null;
}
