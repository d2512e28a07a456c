import { DynamicModule, Module } from '@nestjs/common';
import { ConfigModule } from '@app/config';
import { databaseModule, postgresReadiness } from '@app/database';
import { MessagingModule, natsReadiness } from '@app/messaging';
import { HealthModule, loggingModule } from '@app/server';
import { WaAppsModule } from './wa-apps/wa-apps.module';
import { AuthModule } from './auth';
import { ApiConfig } from './config';
import { EventsModule } from './events';
import { apiSchema } from './database/schema';
import { OnboardingModule } from './onboarding/onboarding.module';
import { ProfilesModule } from './profiles/profiles.module';
import { SubscriptionsModule } from './subscriptions';
import { TemplatesModule } from './templates/templates.module';
import { AppSignalsModule } from './app-signals/app-signals.module';
import { BillingModule } from './billing/billing.module';
import { ConversationsModule } from './conversations/conversations.module';
import { SendingModule } from './sending';
import { StatusesModule } from './statuses/statuses.module';
import { CampaignsModule } from './campaigns/campaigns.module';
import { HousekeepingModule } from './housekeeping/housekeeping.module';
import { RateLimitModule } from './rate-limit';
import { UsersModule } from './users/users.module';
import { HoldsMetrics } from './billing/holds.metrics';

/** The public REST API: wires the feature modules. */
@Module({})
export class ApiModule {
  static forRoot(config: ApiConfig): DynamicModule {
    return {
      module: ApiModule,
      imports: [
        ConfigModule.forRoot(config),
        loggingModule('api', config.LOG_LEVEL),
        MessagingModule.forRoot({ url: config.NATS_URL, prefix: config.NATS_PREFIX, name: 'api' }),
        databaseModule(config.DATABASE_URL, apiSchema, config.DATABASE_POOL_SIZE),
        HealthModule.forRoot([natsReadiness, postgresReadiness]),
        AuthModule,
        EventsModule,
        WaAppsModule,
        ProfilesModule,
        TemplatesModule,
        OnboardingModule,
        AppSignalsModule,
        SubscriptionsModule,
        RateLimitModule,
        HousekeepingModule,
        BillingModule,
        ConversationsModule,
        SendingModule,
        StatusesModule,
        CampaignsModule,
        UsersModule,
      ],
      providers: [HoldsMetrics],
    };
  }
}
