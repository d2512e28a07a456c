import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { ConnectionsModule } from '../connections/connections.module';
import { PixelModule } from '../pixel/pixel.module';
import { ContactsModule } from '../contacts/contacts.module';
import { GatewayMessagesController } from './gateway-messages.controller';
import { GatewayMessagesService } from './gateway-messages.service';
import { GatewayUsageController } from './gateway-usage.controller';
import { CampaignSpendService } from './campaign-spend.service';

/** Sends of the account's connected channels, their delivery report and the usage report. */
@Module({
  imports: [AccountsModule, ConnectionsModule, PixelModule, ContactsModule],
  controllers: [GatewayMessagesController, GatewayUsageController],
  providers: [GatewayMessagesService, CampaignSpendService],
  exports: [GatewayMessagesService],
})
export class GatewayMessagesModule {}
