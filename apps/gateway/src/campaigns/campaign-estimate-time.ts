import {
  CampaignQuote,
  campaignSchedule,
  CampaignSchedule,
  ChannelPacing,
  CampaignRunnerFigures,
  GATEWAY_SEND_CHANNELS,
  GatewaySendChannel,
  quietHoursEnd,
  runnerCapacity,
  unixSeconds,
} from '@app/contracts';
import type { CampaignEstimate, EstimateLimitView } from './campaign-estimate';

const DAY_SECONDS = 86_400;
/** Blocks of the audience each zone's recipients are counted in: a large audience costs no more than its zones. */
const QUIET_BLOCKS = 128;

/** Who quiet hours hold when their sends come: how many, and when the last of them is sent (seconds from the start). */
export interface QuietHold {
  held: number;
  seconds: number;
  /** How many of them are sent later than `seconds` after the start. */
  sentAfter(seconds: number): number;
}

/**
 * Counts the recipients of each time zone by their place in the audience (the order the runner
 * sends in), in at most QUIET_BLOCKS blocks of equal size, so that quiet hours are read, zone by
 * zone, at the time each block's sends would run: a block is held when its zone is inside its
 * quiet hours then (on its own clock, as the runner reads it), and sent once they end.
 */
export class QuietHoursTally {
  private readonly zones = new Map<string, number[]>();
  private block = 1;
  private count = 0;

  constructor(
    private readonly quiet: { start: string; end: string },
    private readonly start: Date,
  ) {}

  /** The next recipient of the audience, in `zone`. */
  add(zone: string): void {
    if (Math.floor(this.count / this.block) >= QUIET_BLOCKS) {
      // Blocks twice as large: each pair of blocks becomes one.
      this.block *= 2;
      for (const [z, counts] of this.zones) {
        const merged: number[] = [];
        counts.forEach((n, i) => (merged[i >> 1] = (merged[i >> 1] ?? 0) + (n ?? 0)));
        this.zones.set(z, merged);
      }
    }
    const counts = this.zones.get(zone) ?? [];
    const i = Math.floor(this.count / this.block);
    counts[i] = (counts[i] ?? 0) + 1;
    this.zones.set(zone, counts);
    this.count++;
  }

  /**
   * Who quiet hours hold under `schedule` (when the first k recipients are sent): each held block
   * waits for its quiet hours to end, then the held go at the runner's kept pace.
   */
  hold(schedule: CampaignSchedule): QuietHold {
    const waits: { end: number; n: number }[] = [];
    for (const [zone, counts] of this.zones) {
      counts.forEach((n, i) => {
        if (!n) return;
        const middle = Math.min(this.count, i * this.block + this.block / 2);
        const at = new Date(this.start.getTime() + schedule.sentBy(middle) * 1000);
        const end = this.endIn(zone, at);
        if (end) waits.push({ end: (end.getTime() - this.start.getTime()) / 1000, n });
      });
    }
    // The held go out as their quiet hours end, each after those released with or before it.
    waits.sort((a, b) => b.end - a.end);
    let after = 0;
    let seconds = 0;
    for (const w of waits) {
      after += w.n;
      seconds = Math.max(seconds, w.end + after / schedule.perSecond);
    }
    const sentAfter = (at: number) => waits.reduce((n, w) => (w.end >= at ? n + w.n : n), 0);
    return { held: after, seconds, sentAfter };
  }

  /** When quiet hours end in `zone` at `at` (an unknown zone as UTC, as the runner reads it); null outside them. */
  private endIn(zone: string, at: Date): Date | null {
    try {
      return quietHoursEnd(at, zone, this.quiet);
    } catch {
      return quietHoursEnd(at, 'UTC', this.quiet);
    }
  }
}

export interface TimeEstimateInput {
  /** Recipients per channel (the first channel consent allows). */
  perChannel: Partial<Record<GatewaySendChannel, number>>;
  pacing: ChannelPacing;
  rate: number | null;
  tier: CampaignQuote['tier'];
  /** The runner answering the quote: tick, batch cap, measured pass cost. */
  runner: CampaignRunnerFigures;
  /** The audience's zones in audience order (null without quiet hours). */
  quiet: QuietHoursTally | null;
  now: Date;
  startAt: Date | null;
  /** The schedule's `end_by`: recipients not sent by then are skipped. */
  endBy: Date | null;
}

export interface TimeEstimate {
  time: CampaignEstimate['time'];
  limits: EstimateLimitView[];
  /** Days past today WhatsApp's tier spreads the campaign over (0 when today's room suffices). */
  tierDays: number;
}

/** How many recipients the runner sends within `seconds` of the start. */
function sentWithin(schedule: CampaignSchedule, total: number, seconds: number): number {
  let lo = 0;
  let hi = total;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (schedule.sentBy(mid) <= seconds) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** WhatsApp recipients the tier leaves for days after `seconds` from the start. */
function tierLeft(input: TimeEstimateInput, seconds: number): number {
  const whatsapp = input.perChannel.whatsapp ?? 0;
  if (!input.tier || input.tier.cap <= 0) return 0;
  const room = Math.max(0, input.tier.remaining) + input.tier.cap * Math.floor(seconds / DAY_SECONDS);
  return Math.max(0, whatsapp - room);
}

/** Seconds to a tenth, as the estimate answers them. */
const tenths = (s: number): number => Math.max(0, Math.ceil(s * 10 - 1e-9)) / 10;

/**
 * How long a campaign takes and what sets it (docs/campaigns.md#the-estimates-time). The time is the
 * runner's passes replayed over the audience (campaignSchedule: the wait for its tick, the first
 * pass's one second of credit, each pass's batch cap and measured cost, each channel's pacing and
 * the campaign's rate together), then WhatsApp's tier (an audience larger than today's room goes on
 * the next days) and quiet hours (only the recipients inside them when their sends would run wait,
 * until theirs end). Each of `limits` says how long that limit alone would take; the slowest is
 * `limited_by`. The finish counts from `start_at` when it is later than now; an `end_by` before it
 * ends the campaign there, the recipients not sent by then counted (`limited_by` end_by).
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
  const capacity = runnerCapacity(input.runner);
  if (total > 0) {
    limits.push({ limit: 'runner', per_second: Math.floor(capacity), seconds: total / capacity });
  }
  const schedule = campaignSchedule(input);
  let seconds = schedule.seconds;
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
    seconds = Math.max(seconds, tierDays * DAY_SECONDS);
  }
  const quiet = input.quiet && total > 0 ? input.quiet.hold(schedule) : null;
  if (quiet && quiet.held > 0) {
    limits.push({ limit: 'quiet_hours', recipients: quiet.held, seconds: quiet.seconds });
    seconds = Math.max(seconds, quiet.seconds);
  }
  let slowest: EstimateLimitView | null = null;
  for (const l of limits) if (!slowest || l.seconds > slowest.seconds) slowest = l;
  const from = input.startAt && input.startAt > input.now ? input.startAt : input.now;
  // `end_by` ends the campaign: those whose sends would run later are skipped.
  const window = input.endBy ? Math.max(0, (input.endBy.getTime() - from.getTime()) / 1000) : null;
  if (window !== null && seconds > window) {
    const unsent = Math.min(
      total,
      total - sentWithin(schedule, total, window) + (quiet?.sentAfter(window) ?? 0) + tierLeft(input, window),
    );
    slowest = { limit: 'end_by', recipients: unsent, seconds: window };
    limits.push(slowest);
    seconds = window;
  }
  return {
    time: {
      seconds: tenths(seconds),
      finish_at: unixSeconds(from) + Math.ceil(seconds),
      limited_by: slowest?.limit ?? 'pacing',
    },
    limits: limits.map((l) => ({ ...l, seconds: tenths(l.seconds) })),
    tierDays,
  };
}
