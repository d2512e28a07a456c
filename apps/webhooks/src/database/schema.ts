import type { SchemaDefinition } from '@app/database';
import { DeliveryAttemptEntity } from '../delivery/delivery-attempt.entity';
import { DeliveryEntity } from '../delivery/delivery.entity';
import { SubscriptionEntity } from '../subscriptions/subscription.entity';
import { Subscriptions1763720000000 } from './migrations/1763720000000-Subscriptions';
import { ParkedEndpointsAndSealedSecrets1763950000001 } from './migrations/1763950000001-ParkedEndpointsAndSealedSecrets';
import { LeaseIndex1764100000000 } from './migrations/1764100000000-LeaseIndex';
import { HeldDeliveries1764200000000 } from './migrations/1764200000000-HeldDeliveries';
import { DeliveryTraceparent1764300000000 } from './migrations/1764300000000-DeliveryTraceparent';
import { MessageStatusRanks1764400000000 } from './migrations/1764400000000-MessageStatusRanks';

/** The webhooks service's schema: its entities and migrations, in order. */
export const webhooksSchema: SchemaDefinition = {
  schema: 'webhooks',
  entities: [SubscriptionEntity, DeliveryEntity, DeliveryAttemptEntity],
  migrations: [
    Subscriptions1763720000000,
    ParkedEndpointsAndSealedSecrets1763950000001,
    LeaseIndex1764100000000,
    HeldDeliveries1764200000000,
    DeliveryTraceparent1764300000000,
    MessageStatusRanks1764400000000,
  ],
};
