import {
  CampaignAudience,
  campaignDefinitionErrors,
  CampaignDefinition,
  campaignInstant,
  ChannelPacing,
  GATEWAY_SEND_CHANNELS,
  GatewaySendChannel,
  normalizedVariant,
} from '@app/contracts';
import { FieldError } from '@app/server';

/** Whether `zone` is an IANA time zone this runtime knows. */
export function isTimeZone(zone: unknown): zone is string {
  if (typeof zone !== 'string' || zone.length === 0 || zone.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en-GB', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const orNull = <T>(v: T | null | undefined): T | null => (v === undefined ? null : v);

/** A schedule's time as kept: as given when ISO 8601, in UTC when it came as Unix seconds. */
const keptTime = (v: unknown): string | null => {
  if (typeof v === 'string') return v;
  return typeof v === 'number' ? campaignInstant(v)!.toISOString() : null;
};

/**
 * A campaign definition checked by its one check (the gateway's too, so the api takes exactly what
 * the gateway took) and normalized: absent optional fields null, the name trimmed, a schedule of
 * no time null; or the field errors. The api never trusts what it receives.
 */
export function checkDefinition(raw: unknown): CampaignDefinition | FieldError[] {
  const errors = campaignDefinitionErrors(raw);
  if (errors.length) return errors;
  const d = raw as CampaignDefinition;
  const start = keptTime(d.schedule?.start_at);
  const end = keptTime(d.schedule?.end_by);
  return {
    name: d.name.trim(),
    template: d.template,
    language: orNull(d.language),
    params: d.params ?? [],
    media_url: orNull(d.media_url),
    audience: d.audience as CampaignAudience,
    channels: d.channels,
    schedule: start !== null || end !== null ? { start_at: start, end_by: end } : null,
    quiet_hours: d.quiet_hours ? { start: d.quiet_hours.start, end: d.quiet_hours.end } : null,
    rate: orNull(d.rate),
    budget: orNull(d.budget),
    ...(d.variants ? { variants: d.variants.map(normalizedVariant) } : {}),
    ...(d.track_links ? { track_links: true } : {}),
    ...(d.frequency ? { frequency: d.frequency } : {}),
  };
}

// The quiet-hours clock is shared with the gateway's estimate (libs/contracts/src/campaign-quiet-hours.ts).
export { inQuietWindow, localMinutes, quietHoursEnd } from '@app/contracts';

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

/** A messaging tier's cap as people say it: 250, 2K, 100K. */
export function tierLabel(cap: number): string {
  return cap >= 1000 && cap % 1000 === 0 ? `${cap / 1000}K` : String(cap);
}
