import type { SchemaDefinition } from '@app/database';
import { DeliveryAttemptEntity } from '../delivery/delivery-attempt.entity';
import { DeliveryEntity } from '../delivery/delivery.entity';
import { SubscriptionEntity } from '../subscriptions/subscription.entity';
import { Subscriptions1763720000000 } from './migrations/1763720000000-Subscriptions';

/** The webhooks service's schema: its entities and migrations, in order. */
export const webhooksSchema: SchemaDefinition = {
  schema: 'webhooks',
  entities: [SubscriptionEntity, DeliveryEntity, DeliveryAttemptEntity],
  migrations: [Subscriptions1763720000000],
};
