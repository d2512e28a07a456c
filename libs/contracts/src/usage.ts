import type { MessageCategory } from './channels';

/** The longest period one usage report may span, in days. */
export const USAGE_MAX_DAYS = 93;

/** The counters of one usage row, in the order the report (and its CSV) lists them. */
export const USAGE_COUNTERS = ['queued', 'sent', 'delivered', 'read', 'failed'] as const;
export type UsageCounter = (typeof USAGE_COUNTERS)[number];

/**
 * The usage of one hour, channel and category: the messages accepted in that hour (UTC) and what
 * became of them. `cost` is the money captured for them, in the user's currency.
 */
export interface UsageRow extends Record<UsageCounter, number> {
  /** Start of the hour the messages were accepted in, ISO 8601 UTC. */
  hour: string;
  channel: string;
  category: MessageCategory;
  cost: number;
  currency: string;
}

export interface UsageReport {
  data: UsageRow[];
}

/** The period and filters of a usage report, as the caller gave them (validated by the api). */
export interface UsageQuery {
  /** YYYY-MM-DD, the first day of the period (from 00:00 UTC). */
  from: string;
  /** YYYY-MM-DD, the last day of the period, included (until 24:00 UTC). */
  to: string;
  channel?: string;
  category?: string;
}

/** The gateway asks for the usage report of the user its account belongs to. */
export interface GetUsageRequest extends UsageQuery {
  user_id: string;
}

/** The money charged for one campaign's messages in a period. */
export interface CampaignSpendRow {
  campaign_id: string;
  /** Messages charged (captured charges, free ones included). */
  charged_messages: number;
  /** The money charged, positive, in `currency`. */
  cost: number;
  currency: string;
}

/**
 * Spend per campaign of an account's campaigns in a period (days as `UsageQuery`, on the time of
 * the charge), charged to its user, paged by campaign id.
 */
export interface GetCampaignSpendRequest {
  user_id: string;
  account_id: string;
  from: string;
  to: string;
  /** Only this campaign. */
  campaign_id?: string;
  /** The last campaign id of the previous page. */
  cursor?: string;
  limit: number;
}

export interface CampaignSpendPage {
  data: CampaignSpendRow[];
  next_cursor: string | null;
}
