import {
  CampaignQuote,
  ChannelPacing,
  GATEWAY_SEND_CHANNELS,
  GatewaySendChannel,
  quietHoursEnd,
  unixSeconds,
} from '@app/contracts';

export const ESTIMATE_LIMITS = ['tier', 'pacing', 'rate', 'quiet_hours'] as const;
export type EstimateLimit = (typeof ESTIMATE_LIMITS)[number];

/** One limit on how fast a campaign can go, and how long it alone would take. */
export interface EstimateLimitView {
  limit: EstimateLimit;
  /** pacing: the sender's channel; tier: whatsapp. */
  channel?: GatewaySendChannel;
  /** pacing, rate: messages per second; tier: unique recipients per 24 hours. */
  per_second?: number;
  per_day?: number;
  /** tier: the days past today the WhatsApp audience spreads over. */
  days?: number;
  /** quiet_hours: the recipients inside their quiet hours at the start (sent once they end). */
  recipients?: number;
  seconds: number;
}

export type EstimateExclusion =
  'opted_out' | 'no_identity' | 'duplicate' | 'missing_param' | 'frequency_cap' | 'recent_template';

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

const DAY_SECONDS = 86_400;

/** Money rounded to 4 decimal places (as the api stores it), summed without drifting. */
const money = (n: number): number => Math.round(n * 10_000) / 10_000;

/** The recipients quiet hours hold when the campaign starts: how many, and when the last one's end. */
export interface QuietHold {
  held: number;
  /** Seconds from the start until the latest end of their quiet hours. */
  lastEndSeconds: number;
}

/**
 * Counts, recipient by recipient, those inside their quiet hours at the campaign's start (on their
 * own zone's clock, as the runner holds them): one clock reading per zone, so a large audience costs
 * no more than its zones.
 */
export class QuietHoursTally {
  private readonly waitByZone = new Map<string, number | null>();
  private readonly hold: QuietHold = { held: 0, lastEndSeconds: 0 };

  constructor(
    private readonly quiet: { start: string; end: string },
    private readonly start: Date,
  ) {}

  add(zone: string): void {
    let wait = this.waitByZone.get(zone);
    if (wait === undefined) {
      wait = this.waitIn(zone);
      this.waitByZone.set(zone, wait);
    }
    if (wait === null) return;
    this.hold.held++;
    this.hold.lastEndSeconds = Math.max(this.hold.lastEndSeconds, wait);
  }

  get result(): QuietHold {
    return { ...this.hold };
  }

  /** Seconds until quiet hours end in `zone` (an unknown zone as UTC, as the runner reads it); null outside them. */
  private waitIn(zone: string): number | null {
    let end: Date | null;
    try {
      end = quietHoursEnd(this.start, zone, this.quiet);
    } catch {
      end = quietHoursEnd(this.start, 'UTC', this.quiet);
    }
    return end ? (end.getTime() - this.start.getTime()) / 1000 : null;
  }
}

export interface TimeEstimateInput {
  /** Recipients per channel (the first channel consent allows). */
  perChannel: Partial<Record<GatewaySendChannel, number>>;
  pacing: ChannelPacing;
  rate: number | null;
  tier: CampaignQuote['tier'];
  /** Who quiet hours hold at the start (null without quiet hours). */
  quiet: QuietHold | null;
  now: Date;
  startAt: Date | null;
}

export interface TimeEstimate {
  time: CampaignEstimate['time'];
  limits: EstimateLimitView[];
  /** Days past today WhatsApp's tier spreads the campaign over (0 when today's room suffices). */
  tierDays: number;
}

/**
 * How long a campaign takes and what sets it: each channel's pacing (its recipients at its
 * sender's pace), the campaign's rate, WhatsApp's tier (an audience larger than today's room goes
 * on the next days) and quiet hours (only the recipients inside them at the start wait, until the
 * last of them ends, and are then sent at the campaign's pace). The finish counts from `start_at`
 * when it is later than now.
 */
export function estimateTime(input: TimeEstimateInput): TimeEstimate {
  const limits: EstimateLimitView[] = [];
  const total = GATEWAY_SEND_CHANNELS.reduce((n, c) => n + (input.perChannel[c] ?? 0), 0);
  for (const channel of GATEWAY_SEND_CHANNELS) {
    const n = input.perChannel[channel] ?? 0;
    const pace = input.pacing[channel];
    if (n > 0 && pace > 0) limits.push({ limit: 'pacing', channel, per_second: pace, seconds: n / pace });
  }
  if (input.rate && total > 0) limits.push({ limit: 'rate', per_second: input.rate, seconds: total / input.rate });
  const sending = Math.max(0, ...limits.map((l) => l.seconds));
  let tierDays = 0;
  const whatsapp = input.perChannel.whatsapp ?? 0;
  if (input.tier && input.tier.cap > 0 && whatsapp > input.tier.remaining) {
    tierDays = Math.ceil((whatsapp - Math.max(0, input.tier.remaining)) / input.tier.cap);
    limits.push({
      limit: 'tier',
      channel: 'whatsapp',
      per_day: input.tier.cap,
      days: tierDays,
      seconds: tierDays * DAY_SECONDS,
    });
  }
  if (input.quiet && input.quiet.held > 0 && total > 0) {
    const { held, lastEndSeconds } = input.quiet;
    limits.push({ limit: 'quiet_hours', recipients: held, seconds: lastEndSeconds + (held * sending) / total });
  }
  let slowest: EstimateLimitView | null = null;
  for (const l of limits) if (!slowest || l.seconds > slowest.seconds) slowest = l;
  const seconds = Math.ceil(slowest?.seconds ?? 0);
  const from = input.startAt && input.startAt > input.now ? input.startAt : input.now;
  return {
    time: {
      seconds,
      finish_at: unixSeconds(from) + seconds,
      limited_by: slowest?.limit ?? 'pacing',
    },
    limits: limits.map((l) => ({ ...l, seconds: Math.ceil(l.seconds) })),
    tierDays,
  };
}

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
  };
  private readonly perChannel: Partial<Record<GatewaySendChannel, number>> = {};
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

  /** A recipient consent allows, counted on its first allowed channel (and its zone, for quiet hours). */
  include(channel: GatewaySendChannel, zone = 'UTC'): void {
    this.audience++;
    this.quiet?.add(zone);
    this.perChannel[channel] = (this.perChannel[channel] ?? 0) + 1;
    this.spent = money(this.spent + this.quote.prices[channel]);
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
    time: (perChannel: Partial<Record<GatewaySendChannel, number>>, quiet: QuietHold | null) => TimeEstimate,
  ): CampaignEstimate {
    const channels: CampaignEstimate['channels'] = {};
    for (const c of GATEWAY_SEND_CHANNELS) {
      const n = this.perChannel[c];
      if (n) channels[c] = { recipients: n, price: this.quote.prices[c], cost: money(n * this.quote.prices[c]) };
    }
    const recipients = this.recipients;
    const estimate = time(this.perChannel, this.quiet?.result ?? null);
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
