import { Body, Controller, Get, Put, UseGuards } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CONSENT_RPC, ConsentSettings } from '@app/contracts';
import { RpcClient } from '@app/messaging';
import { AccountRateLimitGuard } from '../accounts/account-rate-limit.guard';
import { AccountTokenGuard } from '../accounts/account-token.guard';
import { AuthenticatedAccount, CurrentAccount } from '../accounts/authenticated-account';
import { ownerOf } from './contacts.service';
import { UpdateConsentSettingsDto } from './dto/contact-body.dto';
import { ApiAccountToken, ApiProblems } from '../openapi/gateway-problems.decorator';
import { ConsentSettingsDto } from './dto/consent-settings.dto';

const SETTINGS_RPC_TIMEOUT_MS = 5_000;

/** `GET|PUT /v1/consent/settings`: the business's consent settings (docs/consent.md#settings), kept by the api. */
@ApiTags('contacts')
@ApiAccountToken()
@Controller('v1/consent/settings')
@UseGuards(AccountTokenGuard, AccountRateLimitGuard)
export class ConsentSettingsController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  @ApiOperation({ summary: 'Whether marketing needs opt-in, and the opt-out and opt-in keywords' })
  @ApiOkResponse({ type: ConsentSettingsDto })
  @ApiProblems(422)
  get(@CurrentAccount() account: AuthenticatedAccount): Promise<ConsentSettings> {
    return this.rpc.call(
      CONSENT_RPC.settings,
      { user_id: ownerOf(account) },
      { timeoutMs: SETTINGS_RPC_TIMEOUT_MS, unavailable: 'The settings cannot be read right now; retry later.' },
    );
  }

  @Put()
  @ApiOperation({ summary: 'Change some of the consent settings' })
  @ApiBody({ type: UpdateConsentSettingsDto })
  @ApiOkResponse({ type: ConsentSettingsDto, description: 'The settings after the change' })
  @ApiProblems(400, 422)
  update(@CurrentAccount() account: AuthenticatedAccount, @Body() body: unknown): Promise<ConsentSettings> {
    return this.rpc.call(
      CONSENT_RPC.updateSettings,
      { user_id: ownerOf(account), settings: (body ?? {}) as Partial<ConsentSettings> },
      {
        timeoutMs: SETTINGS_RPC_TIMEOUT_MS,
        unavailable: 'The settings cannot be changed right now; nothing was changed.',
      },
    );
  }
}
