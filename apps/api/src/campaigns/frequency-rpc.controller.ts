import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  CAMPAIGNS_RPC,
  CampaignFrequencyRequest,
  CampaignFrequencyResult,
  CampaignSettings,
  GetCampaignSettingsRequest,
  RpcReply,
  UpdateCampaignSettingsRequest,
} from '@app/contracts';
import { rpcAnswer } from '@app/messaging';
import { rpcProblemOf } from '@app/server';
import { FrequencyRulesService } from './frequency-rules';

/**
 * The frequency rules over request/reply for the gateway (`/v1/campaigns/settings` and the
 * estimate's count of the contacts they keep out); the gateway has authenticated the account.
 */
@Controller()
export class FrequencyRpcController {
  constructor(private readonly rules: FrequencyRulesService) {}

  @MessagePattern(CAMPAIGNS_RPC.settings)
  settings(@Payload() req: GetCampaignSettingsRequest): Promise<RpcReply<CampaignSettings>> {
    return rpcAnswer(() => this.rules.settings(req.user_id), rpcProblemOf);
  }

  @MessagePattern(CAMPAIGNS_RPC.updateSettings)
  updateSettings(@Payload() req: UpdateCampaignSettingsRequest): Promise<RpcReply<CampaignSettings>> {
    return rpcAnswer(() => this.rules.updateSettings(req.user_id, req.settings), rpcProblemOf);
  }

  @MessagePattern(CAMPAIGNS_RPC.frequency)
  frequency(@Payload() req: CampaignFrequencyRequest): Promise<RpcReply<CampaignFrequencyResult>> {
    return rpcAnswer(() => this.rules.dryRun(req), rpcProblemOf);
  }
}
