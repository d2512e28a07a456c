import {
  CampaignAudience,
  campaignDefinitionErrors,
  CampaignDefinition,
  campaignInstant,
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
    ...(d.content ? { content: d.content, fallback_template: orNull(d.fallback_template) } : { template: d.template }),
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

// The quiet-hours clock and the pacing are shared with the gateway's estimate (libs/contracts/src/campaign-quiet-hours.ts,
// campaign-pacing.ts).
export {
  creditCountedTo,
  creditWindowMs,
  inQuietWindow,
  localMinutes,
  quietHoursEnd,
  sendAllowance,
} from '@app/contracts';
export type { SendAllowance } from '@app/contracts';

/** A messaging tier's cap as people say it: 250, 2K, 100K. */
export function tierLabel(cap: number): string {
  return cap >= 1000 && cap % 1000 === 0 ? `${cap / 1000}K` : String(cap);
}
