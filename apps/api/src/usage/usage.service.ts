import { Injectable } from '@nestjs/common';
import type { UsageQuery, UsageReport } from '@app/contracts';
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
}
