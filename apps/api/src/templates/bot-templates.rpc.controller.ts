import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  CreateBotTemplateRequest,
  DeleteBotTemplateRequest,
  DeleteBotTemplateResult,
  GATEWAY_TEMPLATES_RPC,
  GatewayTemplateView,
  GetGatewayTemplateRequest,
  GetGatewayTemplateResult,
  ListGatewayTemplatesRequest,
  ListGatewayTemplatesResult,
  RpcReply,
} from '@app/contracts';
import { rpcAnswer } from '@app/messaging';
import { rpcProblemOf } from '@app/server';
import { BotTemplatesService } from './bot-templates.service';

/** Request/reply for the gateway's `/v1/templates`: refusals come back as problems it answers as they are. */
@Controller()
export class BotTemplatesRpcController {
  constructor(private readonly templates: BotTemplatesService) {}

  @MessagePattern(GATEWAY_TEMPLATES_RPC.create)
  create(@Payload() req: CreateBotTemplateRequest): Promise<RpcReply<GatewayTemplateView>> {
    return rpcAnswer(() => this.templates.create(req), rpcProblemOf);
  }

  @MessagePattern(GATEWAY_TEMPLATES_RPC.list)
  list(@Payload() req: ListGatewayTemplatesRequest): Promise<RpcReply<ListGatewayTemplatesResult>> {
    return rpcAnswer(() => this.templates.list(req), rpcProblemOf);
  }

  @MessagePattern(GATEWAY_TEMPLATES_RPC.get)
  get(@Payload() req: GetGatewayTemplateRequest): Promise<RpcReply<GetGatewayTemplateResult>> {
    return rpcAnswer(() => this.templates.get(req), rpcProblemOf);
  }

  @MessagePattern(GATEWAY_TEMPLATES_RPC.delete)
  delete(@Payload() req: DeleteBotTemplateRequest): Promise<RpcReply<DeleteBotTemplateResult>> {
    return rpcAnswer(() => this.templates.delete(req), rpcProblemOf);
  }
}
