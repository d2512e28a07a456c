import { Injectable } from '@nestjs/common';
import { CampaignPassCost, CampaignRunnerFigures, runnerCapacity } from '@app/contracts';
import { ApiConfig } from '../config';

/** How much one pass weighs against the one before it: about the last 20 passes count. */
const DECAY = 0.95;
/** Below this spread of pass sizes (recipients²), the passes tell no fixed cost apart: all of it is per recipient. */
const MIN_SPREAD = 1;

/**
 * What a pass of this process's campaign runner costs (docs/campaigns.md#the-estimates-time): each pass
 * that sent is one point (recipients, milliseconds from its claim to its last send settled), and
 * `fixed + per recipient x recipients` is fitted on them by least squares, the older passes
 * weighing less. It is this process's own figure, kept in memory: the estimate asks whichever api
 * replica answers, and every replica runs the same runner on the same database.
 */
@Injectable()
export class CampaignPassCostMeter {
  /** The runner as the estimate models it: this process's settings and measured pass cost. */
  static figures(config: ApiConfig, meter: CampaignPassCostMeter): CampaignRunnerFigures {
    return { tick_ms: config.CAMPAIGN_TICK_MS, batch_max: config.CAMPAIGN_BATCH_MAX, pass_cost: meter.figure() };
  }

  private w = 0;
  private n = 0;
  private t = 0;
  private nn = 0;
  private nt = 0;
  private passes = 0;

  /** One pass that sent `recipients` in `ms`. */
  record(recipients: number, ms: number): void {
    if (!(recipients > 0) || !(ms >= 0)) return;
    this.w = this.w * DECAY + 1;
    this.n = this.n * DECAY + recipients;
    this.t = this.t * DECAY + ms;
    this.nn = this.nn * DECAY + recipients * recipients;
    this.nt = this.nt * DECAY + recipients * ms;
    this.passes++;
  }

  /** The fitted cost; null before any pass sent. */
  figure(): CampaignPassCost | null {
    if (this.passes === 0) return null;
    const meanN = this.n / this.w;
    const meanT = this.t / this.w;
    const spread = this.nn / this.w - meanN * meanN;
    let perRecipient = meanT / meanN;
    let fixed = 0;
    if (spread >= MIN_SPREAD) {
      const slope = (this.nt / this.w - meanN * meanT) / spread;
      const intercept = meanT - slope * meanN;
      // A fit that makes either part negative says nothing reliable apart: all of it per recipient.
      if (slope > 0 && intercept >= 0) {
        perRecipient = slope;
        fixed = intercept;
      }
    }
    const round = (x: number) => Math.round(x * 1000) / 1000;
    return { fixed_ms: round(fixed), per_recipient_ms: round(perRecipient), passes: this.passes };
  }
}

/**
 * Seconds a running campaign still needs for its `pending` recipients: at the rate it kept over the
 * last minute (or since it started, when that is shorter), which counts the campaigns it shares the
 * runner with; before it sent any, at its pace as far as the runner keeps up with it.
 */
export function remainingSeconds(input: {
  pending: number;
  lastMinute: number;
  runningSeconds: number;
  pace: number;
  runner: CampaignRunnerFigures;
}): number {
  const kept = input.lastMinute / Math.min(60, Math.max(1, input.runningSeconds));
  const rate = kept > 0 ? kept : Math.min(input.pace, runnerCapacity(input.runner));
  return input.pending / rate;
}
