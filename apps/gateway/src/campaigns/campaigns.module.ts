import { Module } from '@nestjs/common';
import { Clock } from '@app/server';
import { AccountsModule } from '../accounts/accounts.module';
import { ConnectionsModule } from '../connections/connections.module';
import { ContactsModule } from '../contacts/contacts.module';
import { CampaignAudienceResolver } from './campaign-audience';
import { CampaignsController } from './campaigns.controller';
import { CampaignsService } from './campaigns.service';

/** Campaigns of gateway accounts: the resource, its estimate and its launch (the api runs them). */
@Module({
  imports: [AccountsModule, ConnectionsModule, ContactsModule],
  controllers: [CampaignsController],
  providers: [CampaignsService, CampaignAudienceResolver, Clock],
})
export class CampaignsModule {}
