import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  CampaignSpendPage,
  GATEWAY_MESSAGES_RPC,
  GetCampaignSpendRequest,
  GatewaySendRequest,
  GatewaySendResult,
  GetMessageReportRequest,
  GetMessageReportResult,
  GetUsageRequest,
  ListMessageReportsRequest,
  ListMessageReportsResult,
  ReadTargetRequest,
  ReadTargetResult,
  RpcBatchRequest,
  RpcBatchResult,
  RpcReply,
  SERVICE_WINDOWS_MAX,
  ServiceWindowsRequest,
  ServiceWindowsResult,
  UsageReport,
} from '@app/contracts';
import { rpcAnswer, rpcAnswerEach } from '@app/messaging';
import { rpcProblemOf, ValidationProblem } from '@app/server';
import { ConversationsService } from '../conversations/conversations.service';
import { UsageService } from '../usage/usage.service';
import { GatewaySendsService } from './gateway-sends';

/**
 * Request/reply for the gateway: its accounts' sends and delivery report, and their user's usage. The gateway has
 * authenticated the account and checked its connection; refusals come back as problems the
 * gateway answers as they are (400 field errors, 403, 422, 429 with Retry-After, 503).
 */
@Controller()
export class GatewayMessagesRpcController {
  constructor(
    private readonly sends: GatewaySendsService,
    private readonly usage: UsageService,
    private readonly windows: ConversationsService,
  ) {}

  @MessagePattern(GATEWAY_MESSAGES_RPC.send)
  send(@Payload() req: GatewaySendRequest): Promise<RpcReply<GatewaySendResult>> {
    return rpcAnswer(() => this.sends.send(req), rpcProblemOf);
  }

  /** Concurrent sends of the gateway in one request: each accepted as by `send`, each answered on its own. */
  @MessagePattern(GATEWAY_MESSAGES_RPC.sendBatch)
  sendBatch(@Payload() req: RpcBatchRequest<GatewaySendRequest>): Promise<RpcReply<RpcBatchResult<GatewaySendResult>>> {
    return rpcAnswer(
      () => rpcAnswerEach(GATEWAY_MESSAGES_RPC.send, req, (send) => this.sends.send(send), rpcProblemOf),
      rpcProblemOf,
    );
  }

  @MessagePattern(GATEWAY_MESSAGES_RPC.get)
  get(@Payload() req: GetMessageReportRequest): Promise<RpcReply<GetMessageReportResult>> {
    return rpcAnswer(() => this.sends.get(req), rpcProblemOf);
  }

  @MessagePattern(GATEWAY_MESSAGES_RPC.list)
  list(@Payload() req: ListMessageReportsRequest): Promise<RpcReply<ListMessageReportsResult>> {
    return rpcAnswer(() => this.sends.list(req), rpcProblemOf);
  }

  @MessagePattern(GATEWAY_MESSAGES_RPC.usage)
  usageReport(@Payload() req: GetUsageRequest): Promise<RpcReply<UsageReport>> {
    return rpcAnswer(() => this.usage.report(req.user_id, req), rpcProblemOf);
  }

  /** Spend per campaign of the account's campaigns, charged to its user. */
  @MessagePattern(GATEWAY_MESSAGES_RPC.campaignSpend)
  campaignSpend(@Payload() req: GetCampaignSpendRequest): Promise<RpcReply<CampaignSpendPage>> {
    return rpcAnswer(() => this.usage.campaignSpend(req), rpcProblemOf);
  }

  /** The 24-hour windows of a page of the gateway's WhatsApp conversations, as the send check decides them. */
  @MessagePattern(GATEWAY_MESSAGES_RPC.windows)
  serviceWindows(@Payload() req: ServiceWindowsRequest): Promise<RpcReply<ServiceWindowsResult>> {
    return rpcAnswer(async () => {
      const recipients = Array.isArray(req?.recipients) ? req.recipients : null;
      if (!Number.isSafeInteger(req?.app_id) || !recipients || recipients.length > SERVICE_WINDOWS_MAX) {
        throw new ValidationProblem([
          { field: 'recipients', message: `an app id and at most ${SERVICE_WINDOWS_MAX} recipients` },
        ]);
      }
      return { windows: await this.windows.windowsOf(req.app_id, recipients.map(String)) };
    }, rpcProblemOf);
  }

  @MessagePattern(GATEWAY_MESSAGES_RPC.readTarget)
  readTarget(@Payload() req: ReadTargetRequest): Promise<RpcReply<ReadTargetResult>> {
    return rpcAnswer(() => this.sends.readTarget(req), rpcProblemOf);
  }
}
