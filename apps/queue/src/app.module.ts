import { DynamicModule, Module } from '@nestjs/common';
import { ConfigModule } from '@app/config';
import { MessagingModule, natsReadiness } from '@app/messaging';
import { HealthModule, loggingModule } from '@app/server';
import { QueueConfig } from './config';
import { DispatchModule, dispatchReadiness } from './dispatch/dispatch.module';
import { QueueBacklogMetrics } from './dispatch/backlog.metrics';

/** Delivery workers: wires the feature modules. */
@Module({})
export class QueueModule {
  static forRoot(config: QueueConfig): DynamicModule {
    return {
      module: QueueModule,
      imports: [
        ConfigModule.forRoot(config),
        loggingModule('queue', config.LOG_LEVEL),
        MessagingModule.forRoot({ url: config.NATS_URL, prefix: config.NATS_PREFIX, name: `queue-${config.CHANNELS}` }),
        DispatchModule,
        HealthModule.forRoot([natsReadiness, dispatchReadiness]),
      ],
      providers: [QueueBacklogMetrics],
    };
  }
}
