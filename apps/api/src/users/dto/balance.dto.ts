import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class BalanceDto {
  @ApiProperty({
    example: 12.5,
    description: 'Available to spend: credits minus charges and amounts held for queued messages',
  })
  balance: number;

  @ApiProperty({ example: 'USD' })
  currency: string;
}

export class TransactionDto {
  @ApiProperty()
  id: string;

  @ApiPropertyOptional({ type: Number, nullable: true, description: 'Null for top-ups' })
  app_id: number | null;

  @ApiProperty({ example: -0.05, description: 'Charges are negative, top-ups positive' })
  amount: number;

  @ApiProperty({ example: 'USD' })
  currency: string;

  @ApiProperty({
    example: 'DELIVERED',
    description:
      "CREDITED (a top-up), or a charge's status: the one its message is charged at, DELIVERED, or SENT on a channel without receipts (Telegram, MAX), as the message's own status",
  })
  status: string;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'MARKETING',
    description: 'Of a charge: the category charged (what the channel billed, else the one the message was sent as)',
  })
  category: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'UTILITY',
    description: 'Of a charge: the category the message was sent (and held) as',
  })
  assumed_category: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'regular',
    description:
      "Of a charge: the channel's pricing type (regular, free_customer_service, free_entry_point), when it gave one",
  })
  pricing_type: string | null;

  @ApiProperty({
    example: 0,
    description:
      'Of a charge: what the channel billed beyond the amount held that the available balance could not cover (not charged)',
  })
  uncharged: number;

  @ApiPropertyOptional({ type: String, nullable: true, example: '7999*****22', description: 'Masked' })
  recipient_phone: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: '019a8d6e-3b7c-7f11-9e2a-5b6c7d8e9f00',
    description: 'Of a charge: the campaign its message was sent for; null otherwise',
  })
  campaign_id: string | null;

  @ApiProperty({ example: 1763700000, description: 'Unix seconds' })
  timestamp: number;
}
