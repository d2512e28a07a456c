import { GATEWAY_SEND_CHANNELS, GatewaySendChannel } from './channels';
import type { ChannelPacing } from './campaigns';

/**
 * The campaign runner's pacing (docs/campaigns.md#running): what one tick may take of a campaign and
 * how its credit carries over. The api's runner takes recipients by it; the gateway's estimate
 * replays it tick by tick (campaign-time-model.ts).
 */

/** Recipients a campaign may take in one tick, per first channel, and in all. */
export interface SendAllowance {
  perChannel: Record<GatewaySendChannel, number>;
  total: number;
}

/**
 * What a campaign may send this tick: the time since its last tick (at most one second's worth,
 * or the time one message takes at its slowest pace, so a slow rate still sends) at each channel's
 * pacing per sender, the campaign's own `rate` over all of them, and at most `batchMax`.
 * `elapsedMs` null (the first tick) counts as a full credit.
 */
export function sendAllowance(input: {
  elapsedMs: number | null;
  pacing: ChannelPacing;
  channels: GatewaySendChannel[];
  rate: number | null;
  batchMax: number;
}): SendAllowance {
  const creditMs = creditWindowMs(input.pacing, input.channels, input.rate);
  const elapsed = input.elapsedMs === null ? creditMs : Math.min(Math.max(0, input.elapsedMs), creditMs);
  const perChannel = Object.fromEntries(GATEWAY_SEND_CHANNELS.map((c) => [c, 0])) as Record<GatewaySendChannel, number>;
  for (const c of input.channels) {
    perChannel[c] = Math.min(input.batchMax, Math.floor((input.pacing[c] * elapsed) / 1000));
  }
  const sum = input.channels.reduce((n, c) => n + perChannel[c], 0);
  const overall = input.rate === null ? sum : Math.floor((input.rate * elapsed) / 1000);
  return { perChannel, total: Math.min(sum, overall, input.batchMax) };
}

/** The most time a campaign's credit may stand for: one second, or one message at its slowest pace. */
export function creditWindowMs(pacing: ChannelPacing, channels: GatewaySendChannel[], rate: number | null): number {
  const rates = channels.map((c) => pacing[c]);
  if (rate !== null) rates.push(rate);
  return Math.max(1000, 1000 / Math.min(...rates));
}

/**
 * Where a campaign's pacing credit is counted to after a tick took `taken` recipients at `now`:
 * under a `rate`, only as far as those messages used it (never more than one credit window
 * behind), so the fraction of a message a tick could not take carries over; otherwise to now.
 */
export function creditCountedTo(input: {
  last: Date | null;
  now: Date;
  taken: number;
  rate: number | null;
  creditMs: number;
}): Date {
  if (input.rate === null || !input.last) return input.now;
  const from = Math.max(input.last.getTime(), input.now.getTime() - input.creditMs);
  return new Date(Math.min(input.now.getTime(), from + (input.taken * 1000) / input.rate));
}
