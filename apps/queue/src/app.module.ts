import { DynamicModule, Module } from '@nestjs/common';
import { ConfigModule } from '@app/config';
import { MessagingModule, natsReadiness } from '@app/messaging';
import { HealthModule, loggingModule } from '@app/server';
import { QueueConfig } from './config';
import { DeliveryModule, deliveryReadiness } from './delivery/delivery.module';

/** Delivery workers: wires the feature modules. */
@Module({})
export class AppModule {
  static forRoot(config: QueueConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        loggingModule('queue', config.LOG_LEVEL),
        MessagingModule.forRoot({ url: config.NATS_URL, prefix: config.NATS_PREFIX, name: `queue-${config.CHANNELS}` }),
        DeliveryModule,
        HealthModule.forRoot([natsReadiness, deliveryReadiness]),
      ],
    };
  }
}
