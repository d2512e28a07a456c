import { ApiProperty } from '@nestjs/swagger';
import {
  DELIVERY_STATUSES,
  EVENT_TYPES,
  SUBSCRIPTION_STATUSES,
  type AttemptStatus,
  type DeliveryStatus,
  type EventFilter,
  type SubscriptionStatus,
} from '@app/contracts';

/*
 * The fields of a webhook subscription, a delivery and an attempt as the api's `/api/v1/subscriptions`
 * and the gateway's `/v1/webhooks` answer them alike: each surface's schema extends these and adds
 * what only it shows.
 */

const UNIX_SECONDS = { type: 'integer', example: 1763700000, description: 'Unix seconds' } as const;
const NULLABLE_UNIX_SECONDS = { ...UNIX_SECONDS, nullable: true } as const;

export class WebhookSubscriptionFieldsDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uri', example: 'https://hooks.acme.test/messaging' })
  url: string;

  @ApiProperty({ type: [String], enum: [...EVENT_TYPES, '*'], example: ['message.delivered'] })
  events: EventFilter[];

  @ApiProperty({ type: Number, nullable: true, example: 12 })
  app_id: number | null;

  @ApiProperty({ type: String, nullable: true })
  description: string | null;

  @ApiProperty({ enum: SUBSCRIPTION_STATUSES })
  status: SubscriptionStatus;

  @ApiProperty({ type: String, nullable: true, description: 'Why it was disabled, when it is' })
  disabled_reason: string | null;

  @ApiProperty(NULLABLE_UNIX_SECONDS)
  disabled_at: number | null;

  @ApiProperty({ ...NULLABLE_UNIX_SECONDS, description: 'Until when the previous secret still signs deliveries' })
  previous_secret_expires_at: number | null;

  @ApiProperty(UNIX_SECONDS)
  created_at: number;

  @ApiProperty(UNIX_SECONDS)
  updated_at: number;
}

export class WebhookRotatedSecretFieldsDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ description: 'The new signing secret; shown once', example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' })
  secret: string;

  @ApiProperty({ ...UNIX_SECONDS, description: 'Until when the previous secret also signs deliveries' })
  previous_secret_expires_at: number;
}

export class WebhookDeliveryFieldsDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty()
  event_id: string;

  @ApiProperty({ example: 'message.delivered' })
  event_type: string;

  @ApiProperty({ enum: DELIVERY_STATUSES })
  status: DeliveryStatus;

  @ApiProperty({ example: 1, description: 'Attempts made so far' })
  attempts: number;

  @ApiProperty({ ...NULLABLE_UNIX_SECONDS, description: 'null when no further attempt is planned' })
  next_attempt_at: number | null;

  @ApiProperty(NULLABLE_UNIX_SECONDS)
  last_attempt_at: number | null;

  @ApiProperty({ type: Number, nullable: true, example: 200 })
  last_response_status: number | null;

  @ApiProperty({ type: String, nullable: true })
  last_error: string | null;

  @ApiProperty(UNIX_SECONDS)
  created_at: number;
}

export class WebhookAttemptFieldsDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ example: 1, description: '1 for the first attempt of a delivery' })
  attempt: number;

  @ApiProperty({ enum: ['SUCCEEDED', 'FAILED'] })
  status: AttemptStatus;

  @ApiProperty({ type: Number, nullable: true, example: 200 })
  response_status: number | null;

  @ApiProperty({ example: 42 })
  latency_ms: number;

  @ApiProperty({ type: String, nullable: true, description: 'The first 1 KiB of the response body' })
  response_excerpt: string | null;

  @ApiProperty({ type: String, nullable: true })
  error: string | null;

  @ApiProperty({ ...NULLABLE_UNIX_SECONDS, description: 'When the next attempt is planned after this one' })
  next_retry_at: number | null;

  @ApiProperty(UNIX_SECONDS)
  created_at: number;
}
