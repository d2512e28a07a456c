import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { ConnectionsModule } from '../connections/connections.module';
import { PixelModule } from '../pixel/pixel.module';
import { ContactsModule } from '../contacts/contacts.module';
import { FlowsModule } from '../flows/flows.module';
import { MediaModule } from '../media/media.module';
import { GatewayMessagesController } from './gateway-messages.controller';
import { GatewayMessagesService } from './gateway-messages.service';
import { GatewayUsageController } from './gateway-usage.controller';
import { CampaignSpendService } from './campaign-spend.service';
import { AcceptedSends } from './accepted-sends';

/** Sends of the account's connected channels, their delivery report and the usage report. */
@Module({
  imports: [AccountsModule, ConnectionsModule, PixelModule, ContactsModule, FlowsModule, MediaModule],
  controllers: [GatewayMessagesController, GatewayUsageController],
  providers: [GatewayMessagesService, CampaignSpendService, AcceptedSends],
  exports: [GatewayMessagesService, AcceptedSends],
})
export class GatewayMessagesModule {}
