import { GATEWAY_SEND_CHANNELS, GatewaySendChannel } from './channels';
import type { ChannelPacing } from './campaigns';
import { creditCountedTo, creditWindowMs, sendAllowance } from './campaign-pacing';

/**
 * How long the api's campaign runner takes to send an audience (docs/campaigns.md#the-estimates-time),
 * replayed pass by pass as the runner works: a pass at each tick of CAMPAIGN_TICK_MS that is not
 * taken by the pass before, each taking what the pacing allows since the previous one (the first:
 * one second's worth) up to CAMPAIGN_BATCH_MAX, and lasting what a pass of that many recipients
 * costs on this platform, as the runner measured its recent passes.
 */

/** What one runner pass costs: `fixed_ms + per_recipient_ms x recipients` (claim, hold and publish of each). */
export interface CampaignPassCost {
  fixed_ms: number;
  per_recipient_ms: number;
  /** How many passes the figure is fitted on (older passes weigh less). */
  passes: number;
}

/** The runner as the estimate models it: its tick, its batch cap, and its measured pass cost (null before any pass). */
export interface CampaignRunnerFigures {
  tick_ms: number;
  batch_max: number;
  pass_cost: CampaignPassCost | null;
}

export interface CampaignScheduleInput {
  /** Recipients per first channel. */
  perChannel: Partial<Record<GatewaySendChannel, number>>;
  pacing: ChannelPacing;
  rate: number | null;
  runner: CampaignRunnerFigures;
}

export interface CampaignSchedule {
  /** Seconds from the start until the last recipient was sent. */
  seconds: number;
  /** Recipients per second once the first pass is behind: what the runner keeps up. */
  perSecond: number;
  /** Seconds from the start until the first `k` recipients (in audience order) were sent. */
  sentBy(k: number): number;
}

/** Passes replayed one by one; a longer campaign goes on at the pace of the last of them. */
const REPLAYED_PASSES = 5000;

/** Milliseconds a pass taking `recipients` costs (0 while nothing was measured). */
export function passMs(cost: CampaignPassCost | null, recipients: number): number {
  return cost ? cost.fixed_ms + cost.per_recipient_ms * recipients : 0;
}

/** The next tick of a runner whose ticks fall at `tick / 2 + k x tick` after `ms` (the start falls between two). */
const nextTick = (ms: number, tick: number): number => (Math.floor((ms - tick / 2) / tick) + 1) * tick + tick / 2;

/**
 * The most recipients per second the runner sends whatever the pacing: a full batch per pass, a
 * pass starting at the first tick after the previous one ended.
 */
export function runnerCapacity(runner: CampaignRunnerFigures): number {
  const period = nextTick(runner.tick_ms / 2 + passMs(runner.pass_cost, runner.batch_max), runner.tick_ms);
  return (runner.batch_max * 1000) / (period - runner.tick_ms / 2);
}

/** The runner's passes over one campaign alone, from its start (launch, or `start_at`). */
export function campaignSchedule(input: CampaignScheduleInput): CampaignSchedule {
  const channels = GATEWAY_SEND_CHANNELS.filter((c) => (input.perChannel[c] ?? 0) > 0);
  const left = Object.fromEntries(channels.map((c) => [c, input.perChannel[c] ?? 0])) as Record<
    GatewaySendChannel,
    number
  >;
  const total = channels.reduce((n, c) => n + left[c], 0);
  const { tick_ms: tick, batch_max: batchMax, pass_cost: cost } = input.runner;
  if (total === 0) return { seconds: 0, perSecond: runnerCapacity(input.runner), sentBy: () => 0 };
  const creditMs = creditWindowMs(input.pacing, channels, input.rate);
  // After each pass that sent: how many were sent so far, and when (ms from the start).
  const sent: number[] = [0];
  const at: number[] = [0];
  // A launched campaign waits for the runner's next tick: half a tick on average.
  let now = tick / 2;
  let last: number | null = null;
  let done = 0;
  for (let pass = 0; done < total && pass < REPLAYED_PASSES; pass++) {
    const allowance = sendAllowance({
      elapsedMs: last === null ? null : now - last,
      pacing: input.pacing,
      channels,
      rate: input.rate,
      batchMax,
    });
    let room = allowance.total;
    let taken = 0;
    for (const c of channels) {
      const n = Math.min(room, allowance.perChannel[c], left[c]);
      left[c] -= n;
      room -= n;
      taken += n;
    }
    if (taken > 0 || allowance.total > 0) {
      const counted = creditCountedTo({
        last: last === null ? null : new Date(last),
        now: new Date(now),
        taken,
        rate: input.rate,
        creditMs,
      });
      last = counted.getTime();
    }
    const end = now + passMs(cost, taken);
    if (taken > 0) {
      done += taken;
      sent.push(done);
      at.push(end);
    }
    now = nextTick(end, tick);
  }
  // The pace kept after the first pass (its one second's credit is the ramp), or the first pass's own.
  const from = sent.length > 2 ? 1 : 0;
  const span = at[at.length - 1] - at[from];
  const perSecond = span > 0 ? ((done - sent[from]) * 1000) / span : runnerCapacity(input.runner);
  const lastMs = at[at.length - 1];
  const sentBy = (k: number): number => {
    if (k >= done) return (lastMs + ((Math.min(k, total) - done) * 1000) / perSecond) / 1000;
    let lo = 0;
    let hi = sent.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sent[mid] >= k) hi = mid;
      else lo = mid + 1;
    }
    return at[lo] / 1000;
  };
  return { seconds: sentBy(total), perSecond, sentBy };
}
