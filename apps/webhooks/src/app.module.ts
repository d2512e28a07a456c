import { DynamicModule, Module } from '@nestjs/common';
import { ConfigModule } from '@app/config';
import { databaseModule, postgresReadiness } from '@app/database';
import { MessagingModule, natsReadiness } from '@app/messaging';
import { HealthModule, loggingModule } from '@app/server';
import { WebhooksConfig } from './config';
import { webhooksSchema } from './database/schema';
import { DeliveryModule } from './delivery/delivery.module';
import { SubscriptionStoreModule } from './subscriptions/subscriptions.module';

/** Event fan-out to subscribers: wires the feature modules. */
@Module({})
export class WebhooksModule {
  static forRoot(config: WebhooksConfig): DynamicModule {
    return {
      module: WebhooksModule,
      imports: [
        ConfigModule.forRoot(config),
        loggingModule('webhooks', config.LOG_LEVEL),
        MessagingModule.forRoot({ url: config.NATS_URL, prefix: config.NATS_PREFIX, name: 'webhooks' }),
        databaseModule(config.DATABASE_URL, webhooksSchema, config.DATABASE_POOL_SIZE),
        HealthModule.forRoot([natsReadiness, postgresReadiness]),
        DeliveryModule,
        SubscriptionStoreModule,
      ],
    };
  }
}
