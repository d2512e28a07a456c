import {
  Body,
  Controller,
  Delete,
  Get,
  Headers,
  HttpCode,
  Param,
  Patch,
  Post,
  Query,
  Req,
  StreamableFile,
  UseGuards,
} from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiExtraModels,
  ApiHeader,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { CampaignView, ListCampaignRecipientsResult, ListCampaignsResult } from '@app/contracts';
import { BodyLimitConfig, jsonBodyOf, parseIdempotencyKey, RAW_BODY } from '@app/server';
import { AccountRateLimitGuard } from '../accounts/account-rate-limit.guard';
import { AccountTokenGuard } from '../accounts/account-token.guard';
import { AuthenticatedAccount, CurrentAccount } from '../accounts/authenticated-account';
import { ApiAccountToken, ApiProblems } from '../openapi/gateway-problems.decorator';
import { CampaignDto, CampaignPageDto } from './dto/campaign.dto';
import { CampaignEstimateDto } from './dto/campaign-estimate.dto';
import { CampaignRecipientPageDto } from './dto/campaign-recipient.dto';
import { CampaignPatchDto } from './dto/update-campaign.dto';
import { CampaignEstimate } from './campaign-estimate';
import { CampaignsService } from './campaigns.service';
import { CampaignDefinitionDto } from './dto/campaign-definition.dto';
import { ListCampaignRecipientsDto, ListCampaignsDto } from './dto/list-campaigns.dto';

/**
 * A definition names up to 10,000 contacts (each id or ext:<external id> of up to 128
 * characters): larger than the default body, and read as bytes so that its own bounds apply.
 */
export const CAMPAIGN_BODY_LIMIT_BYTES = 2 * 1024 * 1024;
const DEFINITION_BODY = { ...RAW_BODY, bodyLimit: CAMPAIGN_BODY_LIMIT_BYTES } satisfies BodyLimitConfig;
// On these routes @Body() is undefined (the bytes are kept for jsonBodyOf): it only marks the
// route as one that takes a body.

/** `/v1/campaigns`: one template to an audience of the account's contacts (docs/campaigns.md). */
@ApiTags('campaigns')
@ApiAccountToken()
@Controller('v1/campaigns')
@UseGuards(AccountTokenGuard, AccountRateLimitGuard)
export class CampaignsController {
  constructor(private readonly campaigns: CampaignsService) {}

  @Post()
  @HttpCode(201)
  @RouteConfig(DEFINITION_BODY)
  @ApiOperation({ summary: 'Create a draft campaign: template, params, audience, channels, schedule and limits' })
  @ApiBody({ type: CampaignDefinitionDto })
  @ApiCreatedResponse({ type: CampaignDto })
  @ApiProblems(400, 413, 415, 422)
  async create(
    @CurrentAccount() account: AuthenticatedAccount,
    @Req() req: FastifyRequest,
    @Body() _bytes: undefined,
  ): Promise<CampaignView> {
    return this.campaigns.create(account, await jsonBodyOf(req));
  }

  @Get()
  @ApiOperation({ summary: "The account's campaigns, newest first, paged; filter by state" })
  @ApiOkResponse({ type: CampaignPageDto })
  @ApiProblems(400)
  list(
    @CurrentAccount() account: AuthenticatedAccount,
    @Query() query: ListCampaignsDto,
  ): Promise<ListCampaignsResult> {
    return this.campaigns.list(account, {
      state: query.state,
      cursor: query.cursor,
      limit: query.limit === undefined ? 50 : Number(query.limit),
    });
  }

  @Get(':id')
  @ApiOperation({ summary: 'A campaign: state, counts per status, money, current rate, estimated finish' })
  @ApiOkResponse({ type: CampaignDto })
  @ApiProblems(403, 404)
  get(@CurrentAccount() account: AuthenticatedAccount, @Param('id') id: string): Promise<CampaignView> {
    return this.campaigns.get(account, id);
  }

  @Patch(':id')
  @RouteConfig(DEFINITION_BODY)
  @ApiOperation({ summary: "Change a draft's fields (null clears an optional one); 409 once launched" })
  @ApiBody({ type: CampaignPatchDto })
  @ApiOkResponse({ type: CampaignDto })
  @ApiProblems(400, 403, 404, 409, 413, 415, 422)
  async update(
    @CurrentAccount() account: AuthenticatedAccount,
    @Param('id') id: string,
    @Req() req: FastifyRequest,
    @Body() _bytes: undefined,
  ): Promise<CampaignView> {
    return this.campaigns.update(account, id, await jsonBodyOf(req));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a draft; 409 once launched' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiProblems(403, 404, 409)
  async remove(@CurrentAccount() account: AuthenticatedAccount, @Param('id') id: string): Promise<void> {
    await this.campaigns.remove(account, id);
  }

  @Post(':id/estimate')
  @HttpCode(200)
  @ApiOperation({
    summary: 'A dry run: the audience resolved as a launch would, exclusions, cost per channel, time and its limits',
  })
  @ApiOkResponse({ type: CampaignEstimateDto })
  @ApiProblems(400, 403, 404, 422)
  estimate(@CurrentAccount() account: AuthenticatedAccount, @Param('id') id: string): Promise<CampaignEstimate> {
    return this.campaigns.estimate(account, id);
  }

  @Post(':id/launch')
  @HttpCode(200)
  @ApiOperation({ summary: 'Resolve the audience and start the draft: scheduled (start_at in the future) or running' })
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description: 'A launch tried again with the key it launched with answers the launched campaign instead of 409',
  })
  @ApiOkResponse({ type: CampaignDto })
  @ApiProblems(400, 403, 404, 409, 422)
  launch(
    @CurrentAccount() account: AuthenticatedAccount,
    @Param('id') id: string,
    @Headers('idempotency-key') rawKey: string | undefined,
  ): Promise<CampaignView> {
    return this.campaigns.launch(account, id, parseIdempotencyKey(rawKey) ?? null);
  }

  @Post(':id/pause')
  @HttpCode(200)
  @ApiOperation({ summary: 'Pause a scheduled or running campaign' })
  @ApiOkResponse({ type: CampaignDto })
  @ApiProblems(403, 404, 409)
  pause(@CurrentAccount() account: AuthenticatedAccount, @Param('id') id: string): Promise<CampaignView> {
    return this.campaigns.transition(account, id, 'pause');
  }

  @Post(':id/resume')
  @HttpCode(200)
  @ApiOperation({ summary: 'Resume a paused campaign where it stopped' })
  @ApiOkResponse({ type: CampaignDto })
  @ApiProblems(403, 404, 409)
  resume(@CurrentAccount() account: AuthenticatedAccount, @Param('id') id: string): Promise<CampaignView> {
    return this.campaigns.transition(account, id, 'resume');
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel a campaign: recipients not sent are skipped as cancelled' })
  @ApiOkResponse({ type: CampaignDto })
  @ApiProblems(403, 404, 409)
  cancel(@CurrentAccount() account: AuthenticatedAccount, @Param('id') id: string): Promise<CampaignView> {
    return this.campaigns.transition(account, id, 'cancel');
  }

  @Get(':id/recipients')
  @ApiOperation({
    summary: "The campaign's report in audience order, paged; Accept: text/csv streams every matching recipient",
  })
  @ApiExtraModels(CampaignRecipientPageDto)
  @ApiOkResponse({
    description: 'A page of recipients; with Accept: text/csv, every recipient matching the filters as a CSV file',
    content: {
      'application/json': { schema: { $ref: getSchemaPath(CampaignRecipientPageDto) } },
      'text/csv': { schema: { type: 'string' } },
    },
  })
  @ApiProblems(400, 403, 404)
  async recipients(
    @CurrentAccount() account: AuthenticatedAccount,
    @Param('id') id: string,
    @Query() query: ListCampaignRecipientsDto,
    @Headers('accept') accept: string | undefined,
  ): Promise<ListCampaignRecipientsResult | StreamableFile> {
    const filter = {
      status: query.status,
      channel: query.channel,
      after: query.after === undefined ? null : Number(query.after),
    };
    if (/\btext\/csv\b/i.test(accept ?? '')) {
      const csv = await this.campaigns.recipientsCsv(account, id, filter);
      return new StreamableFile(csv, {
        type: 'text/csv; charset=utf-8',
        disposition: 'attachment; filename="campaign-recipients.csv"',
      });
    }
    return this.campaigns.recipients(account, id, {
      ...filter,
      limit: query.limit === undefined ? 100 : Number(query.limit),
    });
  }
}
