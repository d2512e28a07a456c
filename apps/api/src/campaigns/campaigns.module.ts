import { Module } from '@nestjs/common';
import { Clock } from '@app/server';
import { BillingModule } from '../billing/billing.module';
import { ConsentModule } from '../consent/consent.module';
import { SendingModule } from '../sending';
import { OutboxModule } from '../outbox';
import { EventsModule } from '../events';
import { ConversationsModule } from '../conversations/conversations.module';
import { CampaignBudgetWake } from './campaign-budget-wake';
import { CampaignRepliesRecorder } from './campaign-replies';
import { CampaignRepliesRepository } from './campaign-replies.repository';
import { CampaignPassCostMeter } from './campaign-pass-cost';
import { CampaignRunner } from './campaign-runner';
import { CampaignWindows } from './campaign-windows';
import { CampaignVariantsRepository } from './campaign-variants.repository';
import { CampaignEngagementRpcController } from './campaign-variants.engagement';
import { CampaignsRepository } from './campaigns.repository';
import { CampaignTotalsCache } from './campaign-totals-cache';
import { CampaignsRpcController } from './campaigns.rpc.controller';
import { CampaignsService } from './campaigns.service';
import { FrequencyRepository } from './frequency-repository';
import { FrequencyRpcController } from './frequency-rpc.controller';
import { FrequencyRulesService } from './frequency-rules';

/** Campaigns of the gateway's accounts: their store, the gateway's requests, and the runner that sends them. */
@Module({
  imports: [SendingModule, BillingModule, ConsentModule, OutboxModule, EventsModule, ConversationsModule],
  controllers: [CampaignsRpcController, FrequencyRpcController, CampaignEngagementRpcController],
  providers: [
    Clock,
    CampaignsRepository,
    CampaignTotalsCache,
    CampaignsService,
    CampaignRunner,
    CampaignWindows,
    CampaignPassCostMeter,
    CampaignVariantsRepository,
    CampaignRepliesRecorder,
    CampaignBudgetWake,
    CampaignRepliesRepository,
    FrequencyRepository,
    FrequencyRulesService,
  ],
})
export class CampaignsModule {}
