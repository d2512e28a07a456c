import { ApiProperty } from '@nestjs/swagger';
import {
  MESSAGE_CATEGORIES,
  MESSAGE_KINDS,
  MESSAGE_STATUSES,
  PRICING_TYPES,
  type MessageCategory,
  type MessageStatus,
  type PricingType,
} from '@app/contracts';
import type { MessageStatusView } from '../messages.service';

export class MessageFailureDto {
  @ApiProperty({ type: String, nullable: true, example: 'recipient_unreachable' })
  code: string | null;

  @ApiProperty({ type: String, nullable: true })
  reason: string | null;
}

export class MessageTimelineEntryDto {
  @ApiProperty({ enum: MESSAGE_STATUSES })
  status: MessageStatus;

  @ApiProperty({ example: 1763700000, description: 'Unix seconds' })
  timestamp: number;
}

/** The answer of GET .../messages/{messageId}: status and timeline, never the content. */
export class MessageStatusDto implements MessageStatusView {
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

  @ApiProperty({
    enum: MESSAGE_CATEGORIES,
    nullable: true,
    example: 'UTILITY',
    description: 'Once charged: the category the charge followed (what the channel billed, else `category`)',
  })
  billed_category: MessageCategory | null;

  @ApiProperty({
    enum: PRICING_TYPES,
    nullable: true,
    example: 'free_customer_service',
    description: "The channel's pricing type, when its status callback gave one",
  })
  pricing_type: PricingType | null;

  @ApiProperty({ type: Number, nullable: true, example: 0, description: 'The amount charged; null until charged' })
  charged: number | null;

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
}
