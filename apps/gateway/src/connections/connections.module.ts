import { Module } from '@nestjs/common';
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
    {
      provide: BotChannels,
      useFactory: (c: GatewayConfig, box: CredentialsBox) => new BotChannels(c, box),
      inject: [GatewayConfig, CredentialsBox],
    },
  ],
  exports: [ConnectionsRepository, CredentialsBox],
})
export class ConnectionsModule {}
