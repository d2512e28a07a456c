import { Injectable } from '@nestjs/common';
import {
  isUuid,
  type CampaignSpendPage,
  type GetCampaignSpendRequest,
  type UsageQuery,
  type UsageReport,
} from '@app/contracts';
import { usagePeriod } from '@app/server';
import { UsageRepository } from './usage.repository';

/**
 * The usage report of a user: per hour of acceptance (UTC), channel and category, the messages
 * queued, sent, delivered, read and failed and the money captured, read from the counters kept
 * with every state change (docs/api.md, Usage). Sends of the api and of the gateway's accounts
 * are the user's messages alike.
 */
@Injectable()
export class UsageService {
  constructor(private readonly usage: UsageRepository) {}

  async report(userId: string, query: UsageQuery): Promise<UsageReport> {
    const period = usagePeriod(query);
    const [rows, currency] = await Promise.all([
      this.usage.report(userId, period, { channel: query.channel, category: query.category }),
      this.usage.currency(userId),
    ]);
    return { data: rows.map((row) => ({ ...row, currency })) };
  }

  /**
   * Spend per campaign: the money charged for each of the account's campaigns in the period (the
   * charges' time, days as the usage report's), a page of campaigns at a time in id order. An
   * unknown campaign, or another account's, gives an empty page.
   */
  async campaignSpend(req: GetCampaignSpendRequest): Promise<CampaignSpendPage> {
    const period = usagePeriod(req);
    const limit = Math.min(Math.max(1, Math.floor(req.limit) || 50), 100);
    const none = (id: string | undefined) => id !== undefined && !isUuid(id);
    if (none(req.campaign_id) || none(req.cursor)) return { data: [], next_cursor: null };
    const [rows, currency] = await Promise.all([
      this.usage.campaignSpend(
        req.user_id,
        req.account_id,
        period,
        { campaignId: req.campaign_id, after: req.cursor },
        limit + 1,
      ),
      this.usage.currency(req.user_id),
    ]);
    const page = rows.slice(0, limit);
    return {
      data: page.map((r) => ({
        campaign_id: r.campaign_id,
        charged_messages: Number(r.charged),
        cost: Number(r.cost),
        currency,
      })),
      next_cursor: rows.length > limit ? page[page.length - 1].campaign_id : null,
    };
  }
}
