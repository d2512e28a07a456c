import { Controller, Get, Headers, Query, Res, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { ApiUsageResponse, sendUsage, UsageQueryDto } from '@app/server';
import { AccountRateLimitGuard } from '../accounts/account-rate-limit.guard';
import { AccountTokenGuard } from '../accounts/account-token.guard';
import { AuthenticatedAccount, CurrentAccount } from '../accounts/authenticated-account';
import { GatewayMessagesService } from './gateway-messages.service';
import { CampaignSpendService } from './campaign-spend.service';
import { CampaignSpendPageDto, CampaignSpendQueryDto } from './dto/campaign-spend.dto';
import { ApiAccountToken, ApiProblems } from '../openapi/gateway-problems.decorator';

/** The usage report of the user the account belongs to, as the api keeps it. */
@ApiTags('usage')
@ApiAccountToken()
@Controller('v1/usage')
@UseGuards(AccountTokenGuard, AccountRateLimitGuard)
export class GatewayUsageController {
  constructor(
    private readonly messages: GatewayMessagesService,
    private readonly spend: CampaignSpendService,
  ) {}

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

  @Get('campaigns')
  @ApiOperation({
    summary: "Spend per campaign: the money charged for each of the account's campaigns in a period, paged",
    description:
      'Each campaign with charges in the period (the time of the charge, UTC days), in campaign id order: the messages charged and their cost.',
  })
  @ApiOkResponse({ type: CampaignSpendPageDto })
  @ApiProblems(400, 422)
  campaigns(
    @CurrentAccount() account: AuthenticatedAccount,
    @Query() query: CampaignSpendQueryDto,
  ): Promise<CampaignSpendPageDto> {
    return this.spend.page(account, query);
  }
}
