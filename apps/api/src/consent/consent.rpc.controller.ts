import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  ApplyConsentRequest,
  ApplyConsentResult,
  CONSENT_RPC,
  ConsentHistoryRequest,
  ConsentHistoryResult,
  ConsentSettings,
  GetConsentSettingsRequest,
  ReadConsentRequest,
  ReadConsentResult,
  RpcReply,
  UpdateConsentSettingsRequest,
} from '@app/contracts';
import { rpcAnswer } from '@app/messaging';
import { rpcProblemOf } from '@app/server';
import { ConsentService } from './consent.service';

/**
 * Consent over request/reply for the gateway's contacts (the consent API, imports, the settings).
 * The gateway has authenticated the account and names its user; refusals come back as problems.
 */
@Controller()
export class ConsentRpcController {
  constructor(private readonly consent: ConsentService) {}

  @MessagePattern(CONSENT_RPC.apply)
  apply(@Payload() req: ApplyConsentRequest): Promise<RpcReply<ApplyConsentResult>> {
    return rpcAnswer(() => this.consent.apply(req.user_id, req.changes), rpcProblemOf);
  }

  @MessagePattern(CONSENT_RPC.read)
  read(@Payload() req: ReadConsentRequest): Promise<RpcReply<ReadConsentResult>> {
    return rpcAnswer(() => this.consent.read(req.user_id, req.addresses), rpcProblemOf);
  }

  @MessagePattern(CONSENT_RPC.history)
  history(@Payload() req: ConsentHistoryRequest): Promise<RpcReply<ConsentHistoryResult>> {
    return rpcAnswer(() => this.consent.history(req.user_id, req.addresses, req.limit), rpcProblemOf);
  }

  @MessagePattern(CONSENT_RPC.settings)
  settings(@Payload() req: GetConsentSettingsRequest): Promise<RpcReply<ConsentSettings>> {
    return rpcAnswer(() => this.consent.settings(req.user_id), rpcProblemOf);
  }

  @MessagePattern(CONSENT_RPC.updateSettings)
  updateSettings(@Payload() req: UpdateConsentSettingsRequest): Promise<RpcReply<ConsentSettings>> {
    return rpcAnswer(() => this.consent.updateSettings(req.user_id, req.settings), rpcProblemOf);
  }
}
