import { ApiProperty } from '@nestjs/swagger';
import {
  AttemptStatus,
  AttemptView,
  CreatedSubscriptionView,
  DELIVERY_STATUSES,
  DeliveryStatus,
  DeliveryView,
  EVENT_TYPES,
  EventFilter,
  ResendView,
  RotatedSecretView,
  SUBSCRIPTION_STATUSES,
  SubscriptionStatus,
  SubscriptionView,
  TestEventView,
} from '@app/contracts';

/*
 * The answers' schemas for the OpenAPI document. Each class implements the view the webhooks
 * service returns, so a field added there and not here fails the type check.
 */

const UNIX_SECONDS = { type: Number, example: 1763700000, description: 'Unix seconds' } as const;
const NULLABLE_UNIX_SECONDS = { ...UNIX_SECONDS, nullable: true } as const;

export class SubscriptionDto implements SubscriptionView {
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

export class CreatedSubscriptionDto extends SubscriptionDto implements CreatedSubscriptionView {
  @ApiProperty({
    description: 'The signing secret (`whsec_` and base64); shown once',
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  })
  secret: string;
}

export class RotatedSecretDto implements RotatedSecretView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ description: 'The new signing secret; shown once', example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' })
  secret: string;

  @ApiProperty({ ...UNIX_SECONDS, description: 'Until when the previous secret also signs deliveries' })
  previous_secret_expires_at: number;
}

export class DeliveryDto implements DeliveryView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty()
  event_id: string;

  @ApiProperty({ example: 'message.delivered' })
  event_type: string;

  @ApiProperty({ enum: DELIVERY_STATUSES })
  status: DeliveryStatus;

  @ApiProperty({ example: 1 })
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

export class AttemptDto implements AttemptView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid' })
  delivery_id: string;

  @ApiProperty()
  event_id: string;

  @ApiProperty({ example: 'message.delivered' })
  event_type: string;

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

export class TestEventDto implements TestEventView {
  @ApiProperty()
  event_id: string;

  @ApiProperty({ format: 'uuid' })
  delivery_id: string;
}

export class ResendDto implements ResendView {
  @ApiProperty({ format: 'uuid' })
  delivery_id: string;

  @ApiProperty({ enum: DELIVERY_STATUSES })
  status: DeliveryStatus;
}
