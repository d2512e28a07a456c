import { Body, Controller, Get, Put, UseGuards } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CAMPAIGNS_RPC, CampaignSettings } from '@app/contracts';
import { RpcCallOptions, RpcClient } from '@app/messaging';
import { AccountRateLimitGuard } from '../accounts/account-rate-limit.guard';
import { AccountTokenGuard } from '../accounts/account-token.guard';
import { AuthenticatedAccount, billedUser, CurrentAccount } from '../accounts/authenticated-account';
import { ApiAccountToken, ApiProblems } from '../openapi/gateway-problems.decorator';
import { CampaignSettingsDto, FrequencyRulesDto } from './dto/campaign-settings.dto';

const READ: RpcCallOptions = { timeoutMs: 5_000, unavailable: 'The settings cannot be read right now; retry later.' };
const WRITE: RpcCallOptions = {
  timeoutMs: 5_000,
  unavailable: 'The settings cannot be changed right now; nothing was changed.',
};

/**
 * `GET|PUT /v1/campaigns/settings`: the account's frequency rules for every marketing campaign
 * (docs/campaigns.md#frequency-rules), kept by the api; a campaign's `frequency` overrides them.
 */
@ApiTags('campaigns')
@ApiAccountToken()
@Controller('v1/campaigns/settings')
@UseGuards(AccountTokenGuard, AccountRateLimitGuard)
export class CampaignSettingsController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  @ApiOperation({ summary: "The account's frequency cap and recent-template rule for marketing campaigns" })
  @ApiOkResponse({ type: CampaignSettingsDto })
  @ApiProblems(422)
  get(@CurrentAccount() account: AuthenticatedAccount): Promise<CampaignSettings> {
    return this.rpc.call(CAMPAIGNS_RPC.settings, { user_id: billedUser(account, 'no campaign settings') }, READ);
  }

  @Put()
  @ApiOperation({ summary: 'Change the frequency rules: a field given replaces it, null turns it off' })
  @ApiBody({ type: FrequencyRulesDto })
  @ApiOkResponse({ type: CampaignSettingsDto, description: 'The settings after the change' })
  @ApiProblems(400, 422)
  update(@CurrentAccount() account: AuthenticatedAccount, @Body() body: unknown): Promise<CampaignSettings> {
    return this.rpc.call(
      CAMPAIGNS_RPC.updateSettings,
      { user_id: billedUser(account, 'no campaign settings'), settings: body ?? {} },
      WRITE,
    );
  }
}
