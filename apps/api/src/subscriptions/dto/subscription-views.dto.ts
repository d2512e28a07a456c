import { ApiProperty } from '@nestjs/swagger';
import {
  AttemptView,
  CreatedSubscriptionView,
  DELIVERY_STATUSES,
  DeliveryStatus,
  DeliveryView,
  ResendView,
  RotatedSecretView,
  SubscriptionView,
  TestEventView,
} from '@app/contracts';
import {
  WebhookAttemptFieldsDto,
  WebhookDeliveryFieldsDto,
  WebhookRotatedSecretFieldsDto,
  WebhookSubscriptionFieldsDto,
} from '@app/server';

/*
 * The answers' schemas for the OpenAPI document. Each class implements the view the webhooks
 * service returns, so a field added there and not here fails the type check. Their fields are the
 * gateway's `/v1/webhooks` ones as well (@app/server's webhook views).
 */

export class SubscriptionDto extends WebhookSubscriptionFieldsDto implements SubscriptionView {}

export class CreatedSubscriptionDto extends SubscriptionDto implements CreatedSubscriptionView {
  @ApiProperty({
    description: 'The signing secret (`whsec_` and base64); shown once',
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  })
  secret: string;
}

export class RotatedSecretDto extends WebhookRotatedSecretFieldsDto implements RotatedSecretView {}

export class DeliveryDto extends WebhookDeliveryFieldsDto implements DeliveryView {}

export class AttemptDto extends WebhookAttemptFieldsDto implements AttemptView {
  @ApiProperty({ format: 'uuid' })
  delivery_id: string;

  @ApiProperty()
  event_id: string;

  @ApiProperty({ example: 'message.delivered' })
  event_type: string;
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
