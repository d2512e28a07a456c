import { Module } from '@nestjs/common';
import { TargetPolicy } from '@app/egress';
import { AccountsModule } from '../accounts/accounts.module';
import { GatewayConfig } from '../config';
import { BotChannels, CredentialsBox } from './bot-channels';
import { ConnectionsController } from './connections.controller';
import { ConnectionsRepository } from './connections.repository';
import { ConnectionsService } from './connections.service';

/** Channels connected to accounts. */
@Module({
  imports: [AccountsModule],
  controllers: [ConnectionsController],
  providers: [
    ConnectionsRepository,
    ConnectionsService,
    { provide: CredentialsBox, useFactory: (c: GatewayConfig) => new CredentialsBox(c), inject: [GatewayConfig] },
    // Where the gateway may call when a tenant chose the address (course platforms, media URLs).
    {
      provide: TargetPolicy,
      useFactory: (c: GatewayConfig) => new TargetPolicy({ allowPrivate: c.allowPrivateTargets }),
      inject: [GatewayConfig],
    },
    {
      provide: BotChannels,
      useFactory: (c: GatewayConfig, box: CredentialsBox) => new BotChannels(c, box),
      inject: [GatewayConfig, CredentialsBox],
    },
  ],
  exports: [ConnectionsRepository, BotChannels, CredentialsBox, TargetPolicy],
})
export class ConnectionsModule {}
