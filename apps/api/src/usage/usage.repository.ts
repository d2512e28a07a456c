import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { MessageCategory, UsageRow } from '@app/contracts';

/** A usage row as PostgreSQL answers it: counters and cost as text (bigint and numeric). */
export interface StoredUsage {
  hour: string;
  channel: string;
  category: MessageCategory;
  queued: string;
  sent: string;
  delivered: string;
  read: string;
  failed: string;
  cost: string;
}

/** The hour of a row as the report writes it (ISO 8601, UTC), in SQL over a column `hour`. */
export const HOUR_ISO = `to_char(hour AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24":00:00Z"')`;

export function usageRowOf(r: StoredUsage): Omit<UsageRow, 'currency'> {
  return {
    hour: r.hour,
    channel: r.channel,
    category: r.category,
    queued: Number(r.queued),
    sent: Number(r.sent),
    delivered: Number(r.delivered),
    read: Number(r.read),
    failed: Number(r.failed),
    cost: Number(r.cost),
  };
}

/** The only place that reads usage_hourly (the statements that count into it run with each state change). */
@Injectable()
export class UsageRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** A user's usage rows of the hours in [from, to), oldest first, then by channel and category. */
  async report(
    userId: string,
    period: { from: Date; to: Date },
    filter: { channel?: string; category?: string },
  ): Promise<Omit<UsageRow, 'currency'>[]> {
    const rows: StoredUsage[] = await this.ds.query(
      `SELECT ${HOUR_ISO} AS hour, channel, category,
              queued::text, sent::text, delivered::text, read::text, failed::text, cost::text
       FROM usage_hourly
       WHERE user_id = $1 AND hour >= $2 AND hour < $3
         AND ($4::text IS NULL OR channel = $4) AND ($5::text IS NULL OR category = $5)
       ORDER BY hour, channel, category`,
      [userId, period.from, period.to, filter.channel ?? null, filter.category ?? null],
    );
    return rows.map(usageRowOf);
  }

  /**
   * The money charged for an account's campaigns in [from, to) (the time of each charge), per
   * campaign in id order after `after`, at most `limit` campaigns: each group read from the user's
   * charges of that campaign by index, so a page reads only its campaigns' charges.
   */
  async campaignSpend(
    userId: string,
    accountId: string,
    period: { from: Date; to: Date },
    filter: { campaignId?: string; after?: string },
    limit: number,
  ): Promise<{ campaign_id: string; charged: string; cost: string }[]> {
    const params: unknown[] = [userId, period.from, period.to, accountId, limit];
    let only = '';
    if (filter.campaignId) {
      params.push(filter.campaignId);
      only += ` AND t.campaign_id = $${params.length}::uuid`;
    }
    if (filter.after) {
      params.push(filter.after);
      only += ` AND t.campaign_id > $${params.length}::uuid`;
    }
    return this.ds.query(
      `SELECT t.campaign_id::text AS campaign_id, count(*)::text AS charged, (-sum(t.amount))::text AS cost
       FROM transactions t
       WHERE t.user_id = $1 AND t.campaign_id IS NOT NULL AND t.created_at >= $2 AND t.created_at < $3 ${only}
         AND EXISTS (SELECT 1 FROM campaigns c WHERE c.id = t.campaign_id AND c.account_id = $4)
       GROUP BY t.campaign_id
       ORDER BY t.campaign_id
       LIMIT $5`,
      params,
    );
  }

  /** The currency a user is charged in (its balance's, else the one it was created with). */
  async currency(userId: string): Promise<string> {
    const rows: { currency: string }[] = await this.ds.query(
      `SELECT coalesce(b.currency, u.currency) AS currency FROM users u LEFT JOIN balances b ON b.user_id = u.id
       WHERE u.id = $1`,
      [userId],
    );
    return (rows[0]?.currency ?? '').trim();
  }
}
