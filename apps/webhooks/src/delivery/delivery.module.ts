import { Clock } from '@app/server';
import { Module } from '@nestjs/common';
import { WebhooksConfig } from '../config';
import { SecretCipher } from '../subscriptions/secret-cipher';
import { SubscriptionsRepository } from '../subscriptions/subscriptions.repository';
import { DeliveryClaimsRepository } from './delivery-claims.repository';
import { DeliveryHistoryRepository } from './delivery-history.repository';
import { DeliveryHousekeepingRepository } from './delivery-housekeeping.repository';
import { DeliveryDispatcher } from './delivery-dispatcher';
import { EndpointNotices } from './endpoint-notices';
import { FanOutConsumer } from './events.consumer';
import { FanOutRepository } from './fan-out.repository';
import { HeldDeliveriesRepository } from './held-deliveries.repository';
import { TargetPolicy } from '@app/egress';
import { webhookTargets } from './target-policy';
import { WebhookSender } from './webhook-sender';

/** Fan-out of events into deliveries, and their signed, retried sending. */
@Module({
  providers: [
    SubscriptionsRepository,
    FanOutRepository,
    DeliveryClaimsRepository,
    HeldDeliveriesRepository,
    DeliveryHousekeepingRepository,
    DeliveryHistoryRepository,
    EndpointNotices,
    DeliveryDispatcher,
    FanOutConsumer,
    Clock,
    { provide: SecretCipher, inject: [WebhooksConfig], useFactory: (c: WebhooksConfig) => SecretCipher.fromConfig(c) },
    { provide: TargetPolicy, inject: [WebhooksConfig], useFactory: (c: WebhooksConfig) => webhookTargets(c) },
    {
      provide: WebhookSender,
      inject: [TargetPolicy, WebhooksConfig, Clock],
      useFactory: (policy: TargetPolicy, c: WebhooksConfig, clock: Clock) =>
        new WebhookSender(policy, c.WEBHOOK_TIMEOUT_MS, clock, c.WEBHOOK_CONCURRENCY),
    },
  ],
  exports: [
    SubscriptionsRepository,
    FanOutRepository,
    DeliveryHousekeepingRepository,
    DeliveryHistoryRepository,
    DeliveryDispatcher,
    TargetPolicy,
    Clock,
  ],
})
export class DeliveryModule {}
