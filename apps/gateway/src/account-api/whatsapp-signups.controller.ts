import { Body, Controller, Get, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AccountRateLimitGuard } from '../accounts/account-rate-limit.guard';
import { AccountTokenGuard } from '../accounts/account-token.guard';
import { AuthenticatedAccount, CurrentAccount } from '../accounts/authenticated-account';
import { ApiAccountToken, ApiProblems } from '../openapi/gateway-problems.decorator';
import { StartWhatsAppSignupDto, WhatsAppSignupDto, WhatsAppSignupStatusDto } from './whatsapp-signups.dto';
import { WhatsAppSignupsService } from './whatsapp-signups.service';

/** WhatsApp's embedded signup for a new app of the account's user: `/v1/connections/signups`. */
@ApiTags('connections')
@ApiAccountToken()
@Controller('v1/connections/signups')
@UseGuards(AccountTokenGuard, AccountRateLimitGuard)
export class WhatsAppSignupsController {
  constructor(private readonly signups: WhatsAppSignupsService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'A new WhatsApp app and the link that opens its embedded signup' })
  @ApiCreatedResponse({ type: WhatsAppSignupDto })
  @ApiProblems(400, 404, 422, 503)
  start(
    @CurrentAccount() account: AuthenticatedAccount,
    @Body() dto: StartWhatsAppSignupDto,
  ): Promise<WhatsAppSignupDto> {
    return this.signups.start(account, dto.name);
  }

  @Get(':appId')
  @ApiOperation({ summary: "A signup's app: its status, and whether its number is connected" })
  @ApiOkResponse({ type: WhatsAppSignupStatusDto })
  @ApiProblems(404, 422, 503)
  status(
    @CurrentAccount() account: AuthenticatedAccount,
    @Param('appId') appId: string,
  ): Promise<WhatsAppSignupStatusDto> {
    return this.signups.status(account, appId);
  }
}
