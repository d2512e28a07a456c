import { Module } from '@nestjs/common';
import { Clock } from '@app/server';
import { BillingModule } from '../billing/billing.module';
import { ConsentModule } from '../consent/consent.module';
import { SendingModule } from '../sending';
import { OutboxModule } from '../outbox';
import { CampaignRunner } from './campaign-runner';
import { CampaignsRepository } from './campaigns.repository';
import { CampaignsRpcController } from './campaigns.rpc.controller';
import { CampaignsService } from './campaigns.service';

/** Campaigns of the gateway's accounts: their store, the gateway's requests, and the runner that sends them. */
@Module({
  imports: [SendingModule, BillingModule, ConsentModule, OutboxModule],
  controllers: [CampaignsRpcController],
  providers: [Clock, CampaignsRepository, CampaignsService, CampaignRunner],
})
export class CampaignsModule {}
