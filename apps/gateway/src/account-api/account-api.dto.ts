import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsIn, IsOptional, IsString, IsUrl, Matches, MaxLength } from 'class-validator';
import {
  DELIVERY_PAGE_ATTEMPTS,
  DELIVERY_STATUSES,
  DeliveryStatus,
  EVENT_TYPES,
  GATEWAY_TRANSACTIONS_PAGE,
  SUBSCRIPTION_LIMITS,
} from '@app/contracts';
import {
  IsCalendarDate,
  WebhookAttemptFieldsDto,
  WebhookDeliveryFieldsDto,
  WebhookRotatedSecretFieldsDto,
  WebhookSubscriptionFieldsDto,
} from '@app/server';
import { ApiNextCursor, CursorPageQueryDto } from '../paging/cursor-page.dto';

const SECONDS = { type: 'integer', description: 'Unix seconds' } as const;

export class BalanceDto {
  @ApiProperty({ example: 12.5, description: 'Available to spend: credits minus charges and amounts held' })
  balance: number;

  @ApiProperty({ example: 'USD' })
  currency: string;
}

/** `GET /v1/transactions`. */
export class TransactionsQueryDto {
  @ApiPropertyOptional({ example: '2026-11-01', description: 'Start of the period (00:00 UTC); default 90 days ago' })
  @IsOptional()
  @IsString()
  @IsCalendarDate()
  start_date?: string;

  @ApiPropertyOptional({ description: 'The next_cursor of the previous page' })
  @IsOptional()
  @IsString()
  @Matches(/^\d{1,17}\.[0-9a-f-]{36}$/, { message: 'cursor must be the next_cursor of a previous page' })
  cursor?: string;

  @ApiPropertyOptional({
    minimum: 1,
    maximum: GATEWAY_TRANSACTIONS_PAGE.max,
    default: GATEWAY_TRANSACTIONS_PAGE.default,
  })
  @IsOptional()
  @Matches(/^[1-9][0-9]{0,2}$/, { message: `limit must be a whole number from 1 to ${GATEWAY_TRANSACTIONS_PAGE.max}` })
  limit?: string;
}

export class TransactionDto {
  @ApiProperty()
  id: string;

  @ApiProperty({ type: Number, nullable: true, description: 'Null for top-ups' })
  app_id: number | null;

  @ApiProperty({ example: -0.05, description: 'Charges are negative, top-ups positive' })
  amount: number;

  @ApiProperty({ example: 'USD' })
  currency: string;

  @ApiProperty({ example: 'DELIVERED', description: 'CREDITED (a top-up), or the status the message was charged at' })
  status: string;

  @ApiProperty({ type: String, nullable: true, example: 'MARKETING' })
  category: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'UTILITY' })
  assumed_category: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'regular' })
  pricing_type: string | null;

  @ApiProperty({ example: 0 })
  uncharged: number;

  @ApiProperty({ type: String, nullable: true, example: '7999*****22', description: 'Masked' })
  recipient_phone: string | null;

  @ApiProperty({ type: String, nullable: true })
  campaign_id: string | null;

  @ApiProperty(SECONDS)
  timestamp: number;
}

export class TransactionPageDto {
  @ApiProperty({ type: [TransactionDto], description: 'Oldest first' })
  data: TransactionDto[];

  @ApiNextCursor()
  next_cursor: string | null;
}

/** `POST /v1/webhooks`. */
export class CreateWebhookDto {
  @ApiProperty({
    format: 'uri',
    maxLength: SUBSCRIPTION_LIMITS.urlMaxLength,
    example: 'https://hooks.example.com/messaging',
  })
  @IsString()
  @MaxLength(SUBSCRIPTION_LIMITS.urlMaxLength)
  @IsUrl(
    { require_protocol: true, protocols: ['http', 'https'], require_tld: false, require_host: true },
    { message: 'url must be an absolute http or https URL' },
  )
  url: string;

  @ApiProperty({
    oneOf: [
      { type: 'string', enum: ['*'] },
      { type: 'array', minItems: 1, items: { type: 'string', enum: [...EVENT_TYPES, '*'] } },
    ],
    description: 'Event types to receive, or "*" for all',
  })
  @IsDefined()
  events: string[] | string;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: SUBSCRIPTION_LIMITS.descriptionMaxLength })
  @IsOptional()
  @IsString()
  @MaxLength(SUBSCRIPTION_LIMITS.descriptionMaxLength)
  description?: string | null;
}

export class WebhookDto extends WebhookSubscriptionFieldsDto {}

export class CreatedWebhookDto extends WebhookDto {
  @ApiProperty({ description: 'The signing secret: shown only in this answer' })
  secret: string;
}

export class RotatedWebhookSecretDto extends WebhookRotatedSecretFieldsDto {}

/** `GET /v1/webhooks/{id}/deliveries`: a cursor-paged list, optionally of one status. */
export class WebhookDeliveriesQueryDto extends CursorPageQueryDto {
  @ApiPropertyOptional({ enum: DELIVERY_STATUSES, description: 'Only deliveries in this status' })
  @IsOptional()
  @IsIn(DELIVERY_STATUSES)
  status?: DeliveryStatus;
}

export class WebhookAttemptDto extends WebhookAttemptFieldsDto {}

export class WebhookDeliveryDto extends WebhookDeliveryFieldsDto {
  @ApiProperty({
    type: [WebhookAttemptDto],
    description: `Its latest attempts (${DELIVERY_PAGE_ATTEMPTS} at most), oldest first`,
  })
  attempt_log: WebhookAttemptDto[];
}

export class WebhookDeliveryPageDto {
  @ApiProperty({ type: [WebhookDeliveryDto], description: 'Newest first' })
  data: WebhookDeliveryDto[];

  @ApiNextCursor()
  next_cursor: string | null;
}

export class WebhookResendDto {
  @ApiProperty({ format: 'uuid' })
  delivery_id: string;

  @ApiProperty({ enum: DELIVERY_STATUSES })
  status: string;
}
