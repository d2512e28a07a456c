import { DynamicModule, Module } from '@nestjs/common';
import { ConfigModule } from '@app/config';
import { databaseModule, postgresReadiness } from '@app/database';
import { MessagingModule, natsReadiness } from '@app/messaging';
import { HealthModule, loggingModule } from '@app/server';
import { CampaignsModule } from './campaigns/campaigns.module';
import { ChannelStatusModule, channelsReadiness } from './channel-status/channel-status';
import { GatewayConfig } from './config';
import { gatewaySchema } from './database/schema';
import { ConnectionsModule } from './connections/connections.module';
import { ConsoleModule } from './console/console.module';
import { hideGatewayPath } from './contacts/contact-log';
import { ContactsModule } from './contacts/contacts.module';
import { ConversationsModule } from './conversations/conversations.module';
import { ConversationRetentionModule } from './conversations/retention.module';
import { CourseModule } from './course/course.module';
import { GatewayMessagesModule } from './messages/gateway-messages.module';
import { InboundModule } from './inbound/inbound.module';
import { PixelModule } from './pixel/pixel.module';
import { SignupModule } from './signup/signup.module';
import { ChannelTemplatesModule } from './templates/templates.module';
import { TokensModule } from './tokens/tokens.module';
import { AccountApiModule } from './account-api/account-api.module';

/** The gateway node: wires the feature modules. */
@Module({})
export class GatewayModule {
  static forRoot(config: GatewayConfig): DynamicModule {
    return {
      module: GatewayModule,
      imports: [
        ConfigModule.forRoot(config),
        loggingModule('gateway', config.LOG_LEVEL, { hidePath: hideGatewayPath }),
        MessagingModule.forRoot({ url: config.NATS_URL, prefix: config.NATS_PREFIX, name: 'gateway' }),
        databaseModule(config.DATABASE_URL, gatewaySchema, config.DATABASE_POOL_SIZE),
        HealthModule.forRoot([natsReadiness, postgresReadiness, channelsReadiness]),
        ChannelStatusModule,
        ConnectionsModule,
        GatewayMessagesModule,
        InboundModule,
        PixelModule,
        ChannelTemplatesModule,
        SignupModule,
        CourseModule,
        ContactsModule,
        CampaignsModule,
        ConversationsModule,
        ConversationRetentionModule,
        ConsoleModule,
        TokensModule,
        AccountApiModule,
      ],
    };
  }
}
