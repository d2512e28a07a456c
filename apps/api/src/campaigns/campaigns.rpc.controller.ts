import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  CAMPAIGNS_RPC,
  CampaignConsentRequest,
  CampaignConsentResult,
  CampaignQuote,
  CampaignQuoteRequest,
  CampaignRef,
  CampaignView,
  CreateCampaignRequest,
  LaunchCampaignRequest,
  ListCampaignRecipientsRequest,
  ListCampaignRecipientsResult,
  ListCampaignsRequest,
  ListCampaignsResult,
  LoadCampaignRequest,
  LoadCampaignResult,
  RpcReply,
  UpdateCampaignRequest,
  CampaignWindowsRequest,
  CampaignWindowsResult,
} from '@app/contracts';
import { rpcAnswer } from '@app/messaging';
import { rpcProblemOf } from '@app/server';
import { ConsentService } from '../consent/consent.service';
import { CampaignsService } from './campaigns.service';
import { CampaignWindows } from './campaign-windows';

/**
 * Campaigns over request/reply for the gateway's `/v1/campaigns`: the gateway has authenticated
 * the account and names it (and its user); refusals come back as problems.
 */
@Controller()
export class CampaignsRpcController {
  constructor(
    private readonly campaigns: CampaignsService,
    private readonly consentService: ConsentService,
    private readonly windows: CampaignWindows,
  ) {}

  @MessagePattern(CAMPAIGNS_RPC.windows)
  windowsOpen(@Payload() req: CampaignWindowsRequest): Promise<RpcReply<CampaignWindowsResult>> {
    return rpcAnswer(() => this.windows.open(req), rpcProblemOf);
  }

  @MessagePattern(CAMPAIGNS_RPC.create)
  create(@Payload() req: CreateCampaignRequest): Promise<RpcReply<CampaignView>> {
    return rpcAnswer(() => this.campaigns.create(req), rpcProblemOf);
  }

  @MessagePattern(CAMPAIGNS_RPC.get)
  get(@Payload() req: CampaignRef): Promise<RpcReply<CampaignView>> {
    return rpcAnswer(() => this.campaigns.get(req), rpcProblemOf);
  }

  @MessagePattern(CAMPAIGNS_RPC.list)
  list(@Payload() req: ListCampaignsRequest): Promise<RpcReply<ListCampaignsResult>> {
    return rpcAnswer(() => this.campaigns.list(req), rpcProblemOf);
  }

  @MessagePattern(CAMPAIGNS_RPC.update)
  update(@Payload() req: UpdateCampaignRequest): Promise<RpcReply<CampaignView>> {
    return rpcAnswer(() => this.campaigns.update(req), rpcProblemOf);
  }

  @MessagePattern(CAMPAIGNS_RPC.delete)
  delete(@Payload() req: CampaignRef): Promise<RpcReply<null>> {
    return rpcAnswer(() => this.campaigns.delete(req), rpcProblemOf);
  }

  @MessagePattern(CAMPAIGNS_RPC.quote)
  quote(@Payload() req: CampaignQuoteRequest): Promise<RpcReply<CampaignQuote>> {
    return rpcAnswer(() => this.campaigns.quote(req), rpcProblemOf);
  }

  @MessagePattern(CAMPAIGNS_RPC.consent)
  consent(@Payload() req: CampaignConsentRequest): Promise<RpcReply<CampaignConsentResult>> {
    return rpcAnswer(() => this.consentService.dryRunRoutes(req), rpcProblemOf);
  }

  @MessagePattern(CAMPAIGNS_RPC.load)
  load(@Payload() req: LoadCampaignRequest): Promise<RpcReply<LoadCampaignResult>> {
    return rpcAnswer(() => this.campaigns.load(req), rpcProblemOf);
  }

  @MessagePattern(CAMPAIGNS_RPC.launch)
  launch(@Payload() req: LaunchCampaignRequest): Promise<RpcReply<CampaignView>> {
    return rpcAnswer(() => this.campaigns.launch(req), rpcProblemOf);
  }

  @MessagePattern(CAMPAIGNS_RPC.pause)
  pause(@Payload() req: CampaignRef): Promise<RpcReply<CampaignView>> {
    return rpcAnswer(() => this.campaigns.pause(req), rpcProblemOf);
  }

  @MessagePattern(CAMPAIGNS_RPC.resume)
  resume(@Payload() req: CampaignRef): Promise<RpcReply<CampaignView>> {
    return rpcAnswer(() => this.campaigns.resume(req), rpcProblemOf);
  }

  @MessagePattern(CAMPAIGNS_RPC.cancel)
  cancel(@Payload() req: CampaignRef): Promise<RpcReply<CampaignView>> {
    return rpcAnswer(() => this.campaigns.cancel(req), rpcProblemOf);
  }

  @MessagePattern(CAMPAIGNS_RPC.recipients)
  recipients(@Payload() req: ListCampaignRecipientsRequest): Promise<RpcReply<ListCampaignRecipientsResult>> {
    return rpcAnswer(() => this.campaigns.recipients(req), rpcProblemOf);
  }
}
