import { CampaignQuote, GATEWAY_SEND_CHANNELS, GatewaySendChannel } from '@app/contracts';
import type { QuietHoursTally, TimeEstimate } from './campaign-estimate-time';

// The time model (docs/campaigns.md#the-estimates-time) is campaign-estimate-time.ts.
export { estimateTime, QuietHoursTally } from './campaign-estimate-time';
export type { QuietHold, TimeEstimate, TimeEstimateInput } from './campaign-estimate-time';

export const ESTIMATE_LIMITS = ['tier', 'pacing', 'rate', 'runner', 'quiet_hours', 'end_by'] as const;
export type EstimateLimit = (typeof ESTIMATE_LIMITS)[number];

/** One limit on how fast a campaign can go, and how long it alone would take. */
export interface EstimateLimitView {
  limit: EstimateLimit;
  /** pacing: the sender's channel; tier: whatsapp. */
  channel?: GatewaySendChannel;
  /** pacing, rate: messages per second; runner: the most it sends per second whatever the pacing. */
  per_second?: number;
  /** tier: unique recipients per 24 hours. */
  per_day?: number;
  /** tier: the days past today the WhatsApp audience spreads over. */
  days?: number;
  /**
   * quiet_hours: the recipients inside their quiet hours when their sends would run (sent once they
   * end); end_by: those not sent by then.
   */
  recipients?: number;
  seconds: number;
}

export type EstimateExclusion =
  'opted_out' | 'no_identity' | 'duplicate' | 'missing_param' | 'frequency_cap' | 'recent_template' | 'window_closed';

/** What a warning is about: the estimate still answers, but a launch may not do what was meant. */
export const ESTIMATE_WARNINGS = ['unknown_list', 'no_match', 'no_recipients', 'tier', 'balance', 'budget'] as const;
export type EstimateWarningCode = (typeof ESTIMATE_WARNINGS)[number];

/** One warning of an estimate: its code, in words, and what it names (a list, a filter). */
export interface EstimateWarning {
  code: EstimateWarningCode;
  detail: string;
  /** unknown_list: the list no contact of the account is in. */
  list?: string;
  /** no_match: the filter that matched no contact, as written in the audience. */
  filter?: Record<string, unknown>;
}

/** `POST /v1/campaigns/{id}/estimate`: the dry run of a launch (docs/campaigns.md#the-estimate). */
export interface CampaignEstimate {
  audience: number;
  recipients: number;
  excluded: Record<EstimateExclusion, number>;
  channels: Partial<Record<GatewaySendChannel, { recipients: number; price: number; cost: number }>>;
  cost: {
    total: number;
    currency: string;
    balance: number;
    covered_recipients: number;
    budget: number | null;
    /** How many recipients, in audience order, the budget covers (null without a budget). */
    budget_covered_recipients: number | null;
  };
  /** finish_at: Unix seconds */
  time: { seconds: number; finish_at: number; limited_by: EstimateLimit };
  limits: EstimateLimitView[];
  warnings: EstimateWarning[];
}

/** Money rounded to 4 decimal places (as the api stores it), summed without drifting. */
const money = (n: number): number => Math.round(n * 10_000) / 10_000;

/**
 * The estimate's tally, fed recipients in audience order: exclusions by reason, recipients and
 * cost per channel, and how far the balance (and the budget) go.
 */
export class EstimateTally {
  audience = 0;
  readonly excluded: Record<EstimateExclusion, number> = {
    opted_out: 0,
    no_identity: 0,
    duplicate: 0,
    missing_param: 0,
    frequency_cap: 0,
    recent_template: 0,
    window_closed: 0,
  };
  private readonly perChannel: Partial<Record<GatewaySendChannel, number>> = {};
  /** Each channel's cost: its recipients at its price, or at the price `include` was given. */
  private readonly costPerChannel: Partial<Record<GatewaySendChannel, number>> = {};
  private spent = 0;
  private covered = 0;
  private budgetCovered = 0;
  private balanceOut = false;
  private budgetOut = false;

  constructor(
    private readonly quote: CampaignQuote,
    private readonly budget: number | null,
    private readonly quiet: QuietHoursTally | null = null,
  ) {}

  exclude(reason: EstimateExclusion): void {
    this.audience++;
    this.excluded[reason]++;
  }

  /** The warnings about the audience itself (an unknown list, a filter matching nobody), listed first. */
  readonly audienceWarnings: EstimateWarning[] = [];

  /**
   * A recipient consent allows, counted on its first allowed channel (and its zone, for quiet
   * hours), at the channel's price or `price` (a content campaign's fallback template).
   */
  include(channel: GatewaySendChannel, zone = 'UTC', price = this.quote.prices[channel]): void {
    this.audience++;
    this.quiet?.add(zone);
    this.perChannel[channel] = (this.perChannel[channel] ?? 0) + 1;
    this.costPerChannel[channel] = money((this.costPerChannel[channel] ?? 0) + price);
    this.spent = money(this.spent + price);
    if (!this.balanceOut && this.spent <= this.quote.balance) this.covered++;
    else this.balanceOut = true;
    if (this.budget !== null) {
      if (!this.budgetOut && this.spent <= this.budget) this.budgetCovered++;
      else this.budgetOut = true;
    }
  }

  get recipients(): number {
    return GATEWAY_SEND_CHANNELS.reduce((n, c) => n + (this.perChannel[c] ?? 0), 0);
  }

  /** The estimate, with its time from `time` (estimateTime of these recipients). */
  result(
    time: (perChannel: Partial<Record<GatewaySendChannel, number>>, quiet: QuietHoursTally | null) => TimeEstimate,
  ): CampaignEstimate {
    const channels: CampaignEstimate['channels'] = {};
    for (const c of GATEWAY_SEND_CHANNELS) {
      const n = this.perChannel[c];
      if (n) channels[c] = { recipients: n, price: this.quote.prices[c], cost: this.costPerChannel[c] ?? 0 };
    }
    const recipients = this.recipients;
    const estimate = time(this.perChannel, this.quiet);
    const warnings: EstimateWarning[] = [...this.audienceWarnings];
    if (this.audience > 0 && recipients === 0) {
      warnings.push({
        code: 'no_recipients',
        detail: `every one of the audience's ${this.audience} contacts is excluded: a launch is refused`,
      });
    }
    if (estimate.tierDays > 0 && this.quote.tier) {
      warnings.push({
        code: 'tier',
        detail: `WhatsApp's tier (${this.quote.tier.label}) spreads the campaign over ${estimate.tierDays + 1} days`,
      });
    }
    if (this.covered < recipients) {
      warnings.push({ code: 'balance', detail: `the balance covers ${this.covered} of ${recipients} recipients` });
    }
    if (this.budget !== null && this.budgetCovered < recipients) {
      warnings.push({ code: 'budget', detail: `the budget covers ${this.budgetCovered} of ${recipients} recipients` });
    }
    return {
      audience: this.audience,
      recipients,
      excluded: { ...this.excluded },
      channels,
      cost: {
        total: this.spent,
        currency: this.quote.currency,
        balance: this.quote.balance,
        covered_recipients: this.covered,
        budget: this.budget,
        budget_covered_recipients: this.budget === null ? null : this.budgetCovered,
      },
      time: estimate.time,
      limits: estimate.limits,
      warnings,
    };
  }
}
