import { Module } from '@nestjs/common';
import { Clock } from '@app/server';
import { AccountsModule } from '../accounts/accounts.module';
import { ConnectionsModule } from '../connections/connections.module';
import { ContactsModule } from '../contacts/contacts.module';
import { LinksModule } from '../links/links.module';
import { MediaModule } from '../media/media.module';
import { CampaignAudienceResolver } from './campaign-audience';
import { CampaignEngagementFilter } from './campaign-engagement';
import { CampaignAudienceCheck } from './campaign-audience-check';
import { CampaignSettingsController } from './campaign-settings.controller';
import { CampaignsController } from './campaigns.controller';
import { CampaignsService } from './campaigns.service';

/** Campaigns of gateway accounts: the resource, its estimate and its launch (the api runs them). */
@Module({
  imports: [AccountsModule, ConnectionsModule, ContactsModule, LinksModule, MediaModule],
  controllers: [CampaignSettingsController, CampaignsController],
  providers: [CampaignsService, CampaignAudienceResolver, CampaignEngagementFilter, CampaignAudienceCheck, Clock],
})
export class CampaignsModule {}
