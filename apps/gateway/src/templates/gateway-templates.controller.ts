import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { GatewayTemplateView, GetGatewayTemplateResult, ListGatewayTemplatesResult } from '@app/contracts';
import { AccountRateLimitGuard } from '../accounts/account-rate-limit.guard';
import { AccountTokenGuard } from '../accounts/account-token.guard';
import { AuthenticatedAccount, CurrentAccount } from '../accounts/authenticated-account';
import { ApiAccountToken, ApiProblems } from '../openapi/gateway-problems.decorator';
import {
  CreateBotTemplateDto,
  DeleteGatewayTemplateDto,
  GatewayTemplateDto,
  GatewayTemplateListDto,
  GatewayTemplatePageDto,
  GetGatewayTemplateDto,
  ListGatewayTemplatesDto,
} from './dto/gateway-template.dto';
import { GatewayTemplatesService } from './gateway-templates.service';

/** `/v1/templates`: bot templates for Telegram and MAX, listed beside the WhatsApp app's (docs/gateway.md#templates). */
@ApiTags('templates')
@ApiAccountToken()
@Controller('v1/templates')
@UseGuards(AccountTokenGuard, AccountRateLimitGuard)
export class GatewayTemplatesController {
  constructor(private readonly templates: GatewayTemplatesService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a bot template, or the next version of its name and language' })
  @ApiCreatedResponse({ type: GatewayTemplateDto })
  @ApiProblems(400, 422)
  create(
    @CurrentAccount() account: AuthenticatedAccount,
    @Body() dto: CreateBotTemplateDto,
  ): Promise<GatewayTemplateView> {
    return this.templates.create(account, dto);
  }

  @Get()
  @ApiOperation({
    summary: "The account's templates by name and language: bot templates and the WhatsApp app's, paged",
  })
  @ApiOkResponse({ type: GatewayTemplatePageDto })
  @ApiProblems(400)
  list(
    @CurrentAccount() account: AuthenticatedAccount,
    @Query() q: ListGatewayTemplatesDto,
  ): Promise<ListGatewayTemplatesResult> {
    return this.templates.list(account, q);
  }

  @Get(':name')
  @ApiOperation({
    summary: 'Every template of a name: the latest (or a given) bot template version per language, and the Meta ones',
  })
  @ApiOkResponse({ type: GatewayTemplateListDto })
  @ApiProblems(400, 404)
  get(
    @CurrentAccount() account: AuthenticatedAccount,
    @Param('name') name: string,
    @Query() q: GetGatewayTemplateDto,
  ): Promise<GetGatewayTemplateResult> {
    return this.templates.get(account, name, q);
  }

  @Delete(':name')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete every version of a bot template (of one language with ?language=)' })
  @ApiNoContentResponse()
  @ApiProblems(400, 404)
  async delete(
    @CurrentAccount() account: AuthenticatedAccount,
    @Param('name') name: string,
    @Query() q: DeleteGatewayTemplateDto,
  ): Promise<void> {
    await this.templates.delete(account, name, q.language);
  }
}
