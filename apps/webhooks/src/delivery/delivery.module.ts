import { Module } from '@nestjs/common';
import { WebhooksConfig } from '../config';
import { SubscriptionsRepository } from '../subscriptions/subscriptions.repository';
import { DeliveriesRepository } from './deliveries.repository';
import { DeliveryDispatcher } from './delivery-dispatcher';
import { EndpointNotices } from './endpoint-notices';
import { EventsConsumer } from './events.consumer';
import { TargetPolicy } from './target-policy';
import { WebhookSender } from './webhook-sender';

/** Fan-out of events into deliveries, and their signed, retried sending. */
@Module({
  providers: [
    SubscriptionsRepository,
    DeliveriesRepository,
    EndpointNotices,
    DeliveryDispatcher,
    EventsConsumer,
    { provide: TargetPolicy, inject: [WebhooksConfig], useFactory: (c: WebhooksConfig) => new TargetPolicy(c) },
    {
      provide: WebhookSender,
      inject: [TargetPolicy, WebhooksConfig],
      useFactory: (policy: TargetPolicy, c: WebhooksConfig) => new WebhookSender(policy, c.WEBHOOK_TIMEOUT_MS),
    },
  ],
  exports: [SubscriptionsRepository, DeliveriesRepository, DeliveryDispatcher, TargetPolicy],
})
export class DeliveryModule {}
