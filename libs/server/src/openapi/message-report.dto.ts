import { ApiProperty } from '@nestjs/swagger';
import {
  MESSAGE_CATEGORIES,
  MESSAGE_STATUSES,
  PRICING_TYPES,
  type MessageCategory,
  type MessageStatus,
  type PricingType,
} from '@app/contracts';

/** Why a message failed, in the api's message status and the gateway's delivery report alike. */
export class MessageFailureDto {
  @ApiProperty({ type: String, nullable: true, example: 'recipient_unreachable' })
  code: string | null;

  @ApiProperty({ type: String, nullable: true })
  reason: string | null;
}

/** One step of a message's timeline. */
export class MessageTimelineEntryDto {
  @ApiProperty({ enum: MESSAGE_STATUSES })
  status: MessageStatus;

  @ApiProperty({ example: 1763700000, description: 'Unix seconds' })
  timestamp: number;
}

/** What a message was charged, in the api's message status and the gateway's delivery report alike. */
export class MessageChargeDto {
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
}
