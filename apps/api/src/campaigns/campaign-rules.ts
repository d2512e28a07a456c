import {
  CampaignAudience,
  CampaignDefinition,
  ChannelPacing,
  GATEWAY_SEND_CHANNELS,
  GatewaySendChannel,
} from '@app/contracts';
import { FieldError } from '@app/server';

const NAME_MAX = 200;
const TEMPLATE_MAX = 512;
const LANGUAGE_MAX = 15;
const PARAMS_MAX = 100;
const PARAM_MAX = 1024;
const URL_MAX = 2048;
const CONTACT_IDS_MAX = 10_000;
const LIST_NAME_MAX = 200;
const ATTRIBUTES_MAX = 50;
const RATE_MIN = 0.1;
const RATE_MAX = 10_000;
const BUDGET_MAX = 1e12;
const HH_MM = /^([01]\d|2[0-3]):([0-5]\d)$/;
/** ISO 8601 with a zone (Z or an offset). */
const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isText = (v: unknown, max: number): v is string =>
  typeof v === 'string' && v.trim().length > 0 && v.length <= max;
const absent = (v: unknown) => v === undefined || v === null;

/** A time `HH:MM` as minutes after midnight; null when it is not one. */
export function minutesOf(hhmm: string): number | null {
  const m = HH_MM.exec(hhmm);
  return m ? Number(m[1]) * 60 + Number(m[2]) : null;
}

/** An instant given as ISO 8601 with a zone; null when it is not one. */
export function instantOf(v: unknown): Date | null {
  if (typeof v !== 'string' || !ISO_WITH_ZONE.test(v)) return null;
  const at = new Date(v);
  return Number.isNaN(at.getTime()) ? null : at;
}

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

function audienceErrors(a: unknown): FieldError[] {
  const field = 'audience';
  if (!isObject(a)) return [{ field, message: 'must be an object' }];
  const kinds = ['list', 'contact_ids', 'filter'].filter((k) => a[k] !== undefined);
  if (kinds.length !== 1 || Object.keys(a).length !== 1) {
    return [{ field, message: 'must have exactly one of list, contact_ids, filter' }];
  }
  if (kinds[0] === 'list') {
    return isText(a.list, LIST_NAME_MAX)
      ? []
      : [{ field: 'audience.list', message: `must be 1 to ${LIST_NAME_MAX} characters` }];
  }
  if (kinds[0] === 'contact_ids') {
    const ids = a.contact_ids;
    const ok =
      Array.isArray(ids) && ids.length >= 1 && ids.length <= CONTACT_IDS_MAX && ids.every((id) => isText(id, 200));
    return ok ? [] : [{ field: 'audience.contact_ids', message: `must be 1 to ${CONTACT_IDS_MAX} contact ids` }];
  }
  const f = a.filter;
  if (!isObject(f)) return [{ field: 'audience.filter', message: 'must be an object' }];
  const errors: FieldError[] = [];
  if (Object.keys(f).some((k) => k !== 'lists' && k !== 'attributes')) {
    errors.push({ field: 'audience.filter', message: 'may have only lists and attributes' });
  }
  if (
    f.lists !== undefined &&
    !(Array.isArray(f.lists) && f.lists.length <= 100 && f.lists.every((l) => isText(l, LIST_NAME_MAX)))
  ) {
    errors.push({ field: 'audience.filter.lists', message: 'must be at most 100 list names' });
  }
  if (f.attributes !== undefined) {
    const attrs = f.attributes;
    const ok =
      isObject(attrs) &&
      Object.keys(attrs).length <= ATTRIBUTES_MAX &&
      Object.entries(attrs).every(
        ([k, v]) =>
          k.length >= 1 &&
          k.length <= 64 &&
          ((typeof v === 'string' && v.length <= PARAM_MAX) || (typeof v === 'number' && Number.isFinite(v))),
      );
    if (!ok)
      errors.push({
        field: 'audience.filter.attributes',
        message: `must map at most ${ATTRIBUTES_MAX} keys to strings or numbers`,
      });
  }
  return errors;
}

/**
 * A campaign definition checked field by field and normalized (absent optional fields are null),
 * or the field errors; the gateway checks it too, the api never trusts it.
 */
export function checkDefinition(raw: unknown): CampaignDefinition | FieldError[] {
  if (!isObject(raw)) return [{ field: 'definition', message: 'must be an object' }];
  const d = raw;
  const errors: FieldError[] = [];
  if (!isText(d.name, NAME_MAX)) errors.push({ field: 'name', message: `must be 1 to ${NAME_MAX} characters` });
  if (!isText(d.template, TEMPLATE_MAX))
    errors.push({ field: 'template', message: `must be 1 to ${TEMPLATE_MAX} characters` });
  if (!absent(d.language) && !isText(d.language, LANGUAGE_MAX)) {
    errors.push({ field: 'language', message: `must be 1 to ${LANGUAGE_MAX} characters` });
  }
  const params = d.params ?? [];
  if (
    !Array.isArray(params) ||
    params.length > PARAMS_MAX ||
    !params.every((p) => typeof p === 'string' && p.length <= PARAM_MAX)
  ) {
    errors.push({
      field: 'params',
      message: `must be at most ${PARAMS_MAX} strings of at most ${PARAM_MAX} characters`,
    });
  }
  if (!absent(d.media_url)) {
    let ok = typeof d.media_url === 'string' && d.media_url.length <= URL_MAX;
    if (ok) {
      try {
        ok = new URL(d.media_url as string).protocol === 'https:';
      } catch {
        ok = false;
      }
    }
    if (!ok) errors.push({ field: 'media_url', message: 'must be an https URL' });
  }
  errors.push(...audienceErrors(d.audience));
  const channels = d.channels;
  if (
    !Array.isArray(channels) ||
    channels.length < 1 ||
    channels.length > 3 ||
    new Set(channels).size !== channels.length ||
    !channels.every((c) => (GATEWAY_SEND_CHANNELS as readonly unknown[]).includes(c))
  ) {
    errors.push({
      field: 'channels',
      message: `must be 1 to 3 distinct channels of ${GATEWAY_SEND_CHANNELS.join(', ')}`,
    });
  }
  let schedule: CampaignDefinition['schedule'] = null;
  if (!absent(d.schedule)) {
    const s = d.schedule;
    if (!isObject(s) || Object.keys(s).some((k) => k !== 'start_at' && k !== 'end_by')) {
      errors.push({ field: 'schedule', message: 'must be an object with start_at and end_by' });
    } else {
      const start = absent(s.start_at) ? null : instantOf(s.start_at);
      const end = absent(s.end_by) ? null : instantOf(s.end_by);
      if (!absent(s.start_at) && !start)
        errors.push({ field: 'schedule.start_at', message: 'must be ISO 8601 with a zone' });
      if (!absent(s.end_by) && !end) errors.push({ field: 'schedule.end_by', message: 'must be ISO 8601 with a zone' });
      if (start && end && end <= start) errors.push({ field: 'schedule.end_by', message: 'must be after start_at' });
      schedule =
        start || end
          ? { start_at: start ? (s.start_at as string) : null, end_by: end ? (s.end_by as string) : null }
          : null;
    }
  }
  let quiet: CampaignDefinition['quiet_hours'] = null;
  if (!absent(d.quiet_hours)) {
    const q = d.quiet_hours;
    const start = isObject(q) && typeof q.start === 'string' ? minutesOf(q.start) : null;
    const end = isObject(q) && typeof q.end === 'string' ? minutesOf(q.end) : null;
    if (start === null || end === null)
      errors.push({ field: 'quiet_hours', message: 'must be {"start": "HH:MM", "end": "HH:MM"}' });
    else if (start === end) errors.push({ field: 'quiet_hours', message: 'start and end must differ' });
    else quiet = { start: (q as { start: string }).start, end: (q as { end: string }).end };
  }
  if (!absent(d.rate) && !(typeof d.rate === 'number' && d.rate >= RATE_MIN && d.rate <= RATE_MAX)) {
    errors.push({ field: 'rate', message: `must be a number from ${RATE_MIN} to ${RATE_MAX}` });
  }
  if (
    !absent(d.budget) &&
    !(typeof d.budget === 'number' && Number.isFinite(d.budget) && d.budget > 0 && d.budget <= BUDGET_MAX)
  ) {
    errors.push({ field: 'budget', message: 'must be a positive number' });
  }
  if (errors.length) return errors;
  return {
    name: (d.name as string).trim(),
    template: d.template as string,
    language: absent(d.language) ? null : (d.language as string),
    params: params as string[],
    media_url: absent(d.media_url) ? null : (d.media_url as string),
    audience: d.audience as CampaignAudience,
    channels: channels as GatewaySendChannel[],
    schedule,
    quiet_hours: quiet,
    rate: absent(d.rate) ? null : (d.rate as number),
    budget: absent(d.budget) ? null : (d.budget as number),
  };
}

/** The local time at `at` in `zone`, as minutes after midnight. */
export function localMinutes(at: Date, zone: string): number {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone: zone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(at);
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return part('hour') * 60 + part('minute');
}

/** Whether a local time falls in quiet hours from `start` to `end` (a window may wrap midnight). */
export function inQuietWindow(minutes: number, start: number, end: number): boolean {
  return start < end ? minutes >= start && minutes < end : minutes >= start || minutes < end;
}

/**
 * When quiet hours end for a recipient in `zone` who is inside them at `at`; null when it is not
 * inside them (it may be sent now). The end is found on the local clock, so a change of offset
 * (summer time) in between is followed.
 */
export function quietHoursEnd(at: Date, zone: string, quiet: { start: string; end: string }): Date | null {
  const start = minutesOf(quiet.start)!;
  const end = minutesOf(quiet.end)!;
  const now = localMinutes(at, zone);
  if (!inQuietWindow(now, start, end)) return null;
  const minuteStart = Math.floor(at.getTime() / 60_000) * 60_000;
  let candidate = new Date(minuteStart + ((end - now + 1440) % 1440 || 1440) * 60_000);
  // An offset change on the way moves the local clock: correct by what it shows at the candidate.
  const drift = ((end - localMinutes(candidate, zone) + 720 + 1440) % 1440) - 720;
  if (drift !== 0) candidate = new Date(candidate.getTime() + drift * 60_000);
  return candidate;
}

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
