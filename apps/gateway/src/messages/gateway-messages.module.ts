import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { ConnectionsModule } from '../connections/connections.module';
import { GatewayMessagesController } from './gateway-messages.controller';
import { GatewayMessagesService } from './gateway-messages.service';

/** Sends of the account's connected channels and their delivery report. */
@Module({
  imports: [AccountsModule, ConnectionsModule],
  controllers: [GatewayMessagesController],
  providers: [GatewayMessagesService],
  exports: [GatewayMessagesService],
})
export class GatewayMessagesModule {}
