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
