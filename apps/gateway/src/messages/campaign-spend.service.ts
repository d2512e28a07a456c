import { Injectable } from '@nestjs/common';
import { CampaignSpendPage, GATEWAY_MESSAGES_RPC } from '@app/contracts';
import { RpcClient } from '@app/messaging';
import { usagePeriod } from '@app/server';
import { AuthenticatedAccount, billedUser } from '../accounts/authenticated-account';
import { CampaignSpendQueryDto } from './dto/campaign-spend.dto';

const SPEND_RPC_TIMEOUT_MS = 5_000;

/**
 * Spend per campaign: what the account's campaigns were charged in a period, read from the api's
 * charges (each carries its campaign), a page of campaigns at a time.
 */
@Injectable()
export class CampaignSpendService {
  constructor(private readonly rpc: RpcClient) {}

  async page(account: AuthenticatedAccount, q: CampaignSpendQueryDto): Promise<CampaignSpendPage> {
    const userId = billedUser(account, 'no usage to report');
    // The period's checks (order, length) are the usage report's, answered here first.
    usagePeriod({ from: q.from, to: q.to });
    return this.rpc.call(
      GATEWAY_MESSAGES_RPC.campaignSpend,
      {
        user_id: userId,
        account_id: account.id,
        from: q.from,
        to: q.to,
        ...(q.campaign_id ? { campaign_id: q.campaign_id.toLowerCase() } : {}),
        ...(q.cursor ? { cursor: q.cursor } : {}),
        limit: q.limit === undefined ? 50 : Number(q.limit),
      },
      { timeoutMs: SPEND_RPC_TIMEOUT_MS, unavailable: 'The usage report cannot be read right now; retry later.' },
    );
  }
}
