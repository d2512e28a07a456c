import { Body, Controller, Get, Patch, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AccountRateLimitGuard } from '../accounts/account-rate-limit.guard';
import { AccountTokenGuard } from '../accounts/account-token.guard';
import { AuthenticatedAccount, CurrentAccount } from '../accounts/authenticated-account';
import { ApiAccountToken, ApiProblems } from '../openapi/gateway-problems.decorator';
import { ConversationSettingsDto, UpdateConversationSettingsDto } from './retention.dto';
import { ConversationRetention } from './retention.service';

/** `GET|PATCH /v1/conversations/settings`: how long the content of the account's conversations is kept. */
@ApiTags('conversations')
@ApiAccountToken()
@Controller('v1/conversations/settings')
@UseGuards(AccountTokenGuard, AccountRateLimitGuard)
export class ConversationSettingsController {
  constructor(private readonly retention: ConversationRetention) {}

  @Get()
  @ApiOperation({ summary: 'The content retention of conversation messages, in days (0: metadata only)' })
  @ApiOkResponse({ type: ConversationSettingsDto })
  get(@CurrentAccount() account: AuthenticatedAccount): Promise<ConversationSettingsDto> {
    return this.retention.settings(account);
  }

  @Patch()
  @ApiOperation({ summary: 'Change the content retention; content older than it is purged within a minute' })
  @ApiOkResponse({ type: ConversationSettingsDto, description: 'The settings after the change' })
  @ApiProblems(400)
  update(
    @CurrentAccount() account: AuthenticatedAccount,
    @Body() dto: UpdateConversationSettingsDto,
  ): Promise<ConversationSettingsDto> {
    return this.retention.update(account, dto);
  }
}
