import { Controller, Get, Headers, Query, Res, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { ApiUsageResponse, sendUsage, UsageQueryDto } from '@app/server';
import { AccountRateLimitGuard } from '../accounts/account-rate-limit.guard';
import { AccountTokenGuard } from '../accounts/account-token.guard';
import { AuthenticatedAccount, CurrentAccount } from '../accounts/authenticated-account';
import { GatewayMessagesService } from './gateway-messages.service';
import { ApiAccountToken, ApiProblems } from '../openapi/gateway-problems.decorator';

/** The usage report of the user the account belongs to, as the api keeps it. */
@ApiTags('usage')
@ApiAccountToken()
@Controller('v1/usage')
@UseGuards(AccountTokenGuard, AccountRateLimitGuard)
export class GatewayUsageController {
  constructor(private readonly messages: GatewayMessagesService) {}

  @Get()
  @ApiOperation({
    summary: 'Usage per hour, channel and category: messages queued, sent, delivered, read, failed and their cost',
    description:
      "The report of the account's user: every message it sent, through the API or any of its gateway accounts, in the hour (UTC) it was accepted in.",
  })
  @ApiUsageResponse()
  @ApiProblems(400, 422)
  async usage(
    @CurrentAccount() account: AuthenticatedAccount,
    @Query() query: UsageQueryDto,
    @Headers('accept') accept: string | undefined,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    await sendUsage(reply, accept, await this.messages.usage(account, query));
  }
}
