import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, Req, Res, UseGuards } from '@nestjs/common';
import { ApiAcceptedResponse, ApiHeader, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { parseIdempotencyKey, requestHash } from '@app/server';
import { AccountRateLimitGuard } from '../accounts/account-rate-limit.guard';
import { AccountTokenGuard } from '../accounts/account-token.guard';
import { AuthenticatedAccount, CurrentAccount } from '../accounts/authenticated-account';
import {
  ListGatewayMessagesDto,
  SendGatewayMessageDto,
  SendGatewayMessageResponseDto,
} from './dto/send-gateway-message.dto';
import { GatewayMessageReport, GatewayMessagesService } from './gateway-messages.service';
import { ApiAccountToken, ApiProblems } from '../openapi/gateway-problems.decorator';
import { MessageReportDto, MessageReportPageDto } from './dto/message-report.dto';

/** One send endpoint and one delivery report for every channel of the account. */
@ApiTags('messages')
@ApiAccountToken()
@Controller('v1/messages')
@UseGuards(AccountTokenGuard, AccountRateLimitGuard)
export class GatewayMessagesController {
  constructor(private readonly messages: GatewayMessagesService) {}

  @Post()
  @HttpCode(202)
  @ApiOperation({ summary: 'Send a template or free-form content on a connected channel; 202 once it is queued' })
  @ApiHeader({ name: 'Idempotency-Key', required: false, description: 'Repeats return the first answer' })
  @ApiAcceptedResponse({ type: SendGatewayMessageResponseDto })
  @ApiProblems(400, 403, 404, 409, 422)
  async send(
    @CurrentAccount() account: AuthenticatedAccount,
    @Body() dto: SendGatewayMessageDto,
    @Headers('idempotency-key') rawKey: string | undefined,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SendGatewayMessageResponseDto> {
    const key = parseIdempotencyKey(rawKey);
    const idempotency =
      key === undefined ? null : { key, hash: requestHash(request.method, request.url.split('?')[0], request.body) };
    const answer = await this.messages.send(account, dto, idempotency);
    if (answer.replayed) void reply.header('Idempotent-Replayed', 'true');
    void reply.header('Location', `/v1/messages/${answer.id}`);
    return {
      id: answer.id,
      status: answer.status,
      ...(answer.rendered_as ? { rendered_as: answer.rendered_as } : {}),
      ...(answer.flow_token ? { flow_token: answer.flow_token } : {}),
    };
  }

  @Get()
  @ApiOperation({ summary: "The account's messages on every channel, newest first, paged" })
  @ApiOkResponse({ type: MessageReportPageDto })
  @ApiProblems(400)
  list(
    @CurrentAccount() account: AuthenticatedAccount,
    @Query() query: ListGatewayMessagesDto,
  ): Promise<{ data: GatewayMessageReport[]; next_cursor: string | null }> {
    return this.messages.list(account, query);
  }

  @Get(':id')
  @ApiOperation({ summary: "A message's delivery report: channel, status, timeline, failure (never its content)" })
  @ApiOkResponse({ type: MessageReportDto })
  @ApiProblems(403, 404)
  get(@CurrentAccount() account: AuthenticatedAccount, @Param('id') id: string): Promise<GatewayMessageReport> {
    return this.messages.get(account, id);
  }
}
