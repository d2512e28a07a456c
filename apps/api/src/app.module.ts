import { DynamicModule, Module } from '@nestjs/common';
import { ConfigModule } from '@app/config';
import { databaseModule, postgresReadiness } from '@app/database';
import { MessagingModule, natsReadiness } from '@app/messaging';
import { HealthModule, loggingModule } from '@app/server';
import { AuthModule } from './auth';
import { ApiConfig } from './config';
import { apiSchema } from './database/schema';

/** The public REST API: wires the feature modules. */
@Module({})
export class AppModule {
  static forRoot(config: ApiConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        loggingModule('api', config.LOG_LEVEL),
        MessagingModule.forRoot({ url: config.NATS_URL, prefix: config.NATS_PREFIX, name: 'api' }),
        databaseModule(config.DATABASE_URL, apiSchema, config.DATABASE_POOL_SIZE),
        HealthModule.forRoot([natsReadiness, postgresReadiness]),
        AuthModule,
      ],
    };
  }
}
