import { isURL } from 'class-validator';
import { GATEWAY_SEND_CHANNELS } from './channels';
import { ATTRIBUTE_KEY, CONTACT_LIMITS, EXTERNAL_PREFIX, parseAttributes, parseLists } from './contact-field-rules';
import { isUuid } from './ids';
import { variantsErrors } from './campaign-variants';
import { engagementErrors } from './campaign-engagement';
import { frequencyRulesErrors } from './campaign-frequency';
import { campaignContentErrors, campaignSendContentErrors } from './campaign-content';

/**
 * A campaign's definition (docs/campaigns.md#the-definition) has one check: the gateway runs it
 * on a request body, the api on every definition it receives, so neither takes what the other
 * refuses.
 */
export const CAMPAIGN_LIMITS = {
  nameLength: 200,
  /** One value per template variable: header, body and URL buttons together. */
  params: 100,
  paramLength: 1024,
  mediaUrlLength: 2048,
  /** Contacts an audience may name one by one. */
  contactIds: 10_000,
  channels: 3,
  /** Messages per second. */
  minRate: 0.1,
  maxRate: 10_000,
  /** In the balance's currency. */
  maxBudget: 1e9,
  /** Unix seconds of 9999-12-31T23:59:59Z, the last instant a zoned time can write. */
  maxUnixSeconds: 253_402_300_799,
} as const;

/** A template's name, as Meta names them. */
export const TEMPLATE_NAME = /^[a-z0-9_]{1,512}$/;
/** A template's language code. */
export const TEMPLATE_LANGUAGE = /^[a-z]{2,3}(_[A-Z]{2})?$/;
/** A date-time in ISO 8601 with its zone (`Z` or an offset), seconds and 1 to 9 fractional digits optional. */
const ZONED_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:Z|([+-])(\d{2}):(\d{2}))$/;
/** A local time of day, 00:00 to 23:59. */
const TIME_OF_DAY = /^([01]\d|2[0-3]):([0-5]\d)$/;

type FieldErrors = { field: string; message: string }[];

/** The fields of a campaign definition, in the order a stored one is rebuilt. */
export const CAMPAIGN_DEFINITION_FIELDS = [
  'name',
  'template',
  // A content campaign (docs/campaigns.md#content-campaigns): checked by campaignContentErrors.
  'content',
  'fallback_template',
  'language',
  'params',
  'media_url',
  'audience',
  'channels',
  'schedule',
  'quiet_hours',
  'rate',
  'budget',
  'frequency',
  // Variants (docs/campaigns.md#variants): checked by variantsErrors.
  'variants',
  'track_links',
] as const;
const AUDIENCES = ['list', 'contact_ids', 'filter'] as const;
const REFERENCE = /\{\{([^{}]*)\}\}/g;
const CONTACT_FIELDS = new Set(['name', 'external_id', 'language']);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const absent = (v: unknown): v is null | undefined => v === undefined || v === null;

/** A time `HH:MM` as minutes after midnight; null when it is not one. */
export function minutesOf(hhmm: unknown): number | null {
  const m = typeof hhmm === 'string' ? TIME_OF_DAY.exec(hhmm) : null;
  return m ? Number(m[1]) * 60 + Number(m[2]) : null;
}

/**
 * A schedule's instant: ISO 8601 with a zone (0 to 9 fractional digits of a second) or a whole
 * number of Unix seconds; null when it is neither, or names no real date (February 30th).
 */
export function campaignInstant(v: unknown): Date | null {
  if (typeof v === 'number') {
    return Number.isInteger(v) && v >= 0 && v <= CAMPAIGN_LIMITS.maxUnixSeconds ? new Date(v * 1000) : null;
  }
  const m = typeof v === 'string' ? ZONED_TIME.exec(v) : null;
  if (!m) return null;
  const [year, month, day, hour, minute, second = '0', fraction = '', sign, offH = '0', offM = '0'] = m.slice(1);
  const local = Date.UTC(+year, +month - 1, +day, +hour, +minute, +second, +fraction.padEnd(3, '0').slice(0, 3));
  const date = new Date(local);
  const real =
    date.getUTCFullYear() === +year &&
    date.getUTCMonth() === +month - 1 &&
    date.getUTCDate() === +day &&
    +hour < 24 &&
    +minute < 60 &&
    +second < 60 &&
    +offH < 24 &&
    +offM < 60;
  if (!real) return null;
  const offset = (sign === '-' ? -1 : 1) * (+offH * 60 + +offM);
  return new Date(local - offset * 60_000);
}

/** Whether a string names a contact: its id, or ext:<external id>. */
export function isContactRef(ref: unknown): boolean {
  if (typeof ref !== 'string') return false;
  if (ref.startsWith(EXTERNAL_PREFIX)) {
    const external = ref.slice(EXTERNAL_PREFIX.length);
    return external.length > 0 && external.length <= CONTACT_LIMITS.externalId;
  }
  return isUuid(ref);
}

/** A part of a param: literal text, or a contact field it is filled from. */
export type CampaignParamPart = string | { field: 'name' | 'external_id' | 'language' } | { attribute: string };

/** What `{{ ... }}` names, or null when it is no field a param may refer to. */
function referenceOf(inner: string): Exclude<CampaignParamPart, string> | null {
  const ref = inner.trim();
  if (!ref.startsWith('contact.')) return null;
  const path = ref.slice('contact.'.length);
  if (CONTACT_FIELDS.has(path)) return { field: path as 'name' | 'external_id' | 'language' };
  if (!path.startsWith('attributes.')) return null;
  const key = path.slice('attributes.'.length);
  return key.length <= CONTACT_LIMITS.attributeKey && ATTRIBUTE_KEY.test(key) ? { attribute: key } : null;
}

/** One param split into literal text and the contact fields it refers to, with the references that name none. */
export function campaignParamParts(text: string): { parts: CampaignParamPart[]; unknown: string[] } {
  const parts: CampaignParamPart[] = [];
  const unknown: string[] = [];
  let at = 0;
  for (const m of text.matchAll(REFERENCE)) {
    const ref = referenceOf(m[1]);
    if (!ref) {
      unknown.push(m[0]);
      continue;
    }
    if (m.index > at) parts.push(text.slice(at, m.index));
    parts.push(ref);
    at = m.index + m[0].length;
  }
  if (at < text.length) parts.push(text.slice(at));
  return { parts, unknown };
}

function paramsErrors(params: unknown): FieldErrors {
  if (absent(params)) return [];
  const { params: most, paramLength } = CAMPAIGN_LIMITS;
  if (
    !Array.isArray(params) ||
    params.length > most ||
    !params.every((p) => typeof p === 'string' && p.length <= paramLength)
  ) {
    return [
      { field: 'params', message: `params must be at most ${most} strings of at most ${paramLength} characters` },
    ];
  }
  const errors: FieldErrors = [];
  (params as string[]).forEach((text, i) => {
    const { unknown } = campaignParamParts(text);
    if (unknown.length) {
      errors.push({
        field: `params[${i}]`,
        message: `${unknown[0].slice(0, 80)} is not a contact field: use {{contact.name}}, {{contact.external_id}}, {{contact.language}} or {{contact.attributes.<key>}}`,
      });
    }
  });
  return errors;
}

/** Keys of an object the definition does not know, each named as `<at>.<key>`. */
function unknownKeys(v: Record<string, unknown>, known: readonly string[], at: string): FieldErrors {
  return Object.keys(v)
    .filter((k) => !known.includes(k))
    .map((k) => ({ field: `${at}${k}`, message: 'is not a field' }));
}

function audienceErrors(a: unknown): FieldErrors {
  if (!isObject(a)) return [{ field: 'audience', message: 'audience must be an object' }];
  const errors = unknownKeys(a, AUDIENCES, 'audience.');
  const given = AUDIENCES.filter((k) => !absent(a[k]));
  if (given.length !== 1 || AUDIENCES.some((k) => a[k] === null)) {
    errors.push({ field: 'audience', message: 'audience must name exactly one of list, contact_ids, filter' });
  }
  if (a.list !== undefined && a.list !== null && !parseLists([a.list], [])) {
    errors.push({
      field: 'audience.list',
      message: `audience.list must be a list name of 1 to ${CONTACT_LIMITS.listName} letters, digits, spaces, _ . -`,
    });
  }
  const ids = a.contact_ids;
  if (ids !== undefined && ids !== null) {
    if (!Array.isArray(ids) || ids.length < 1 || ids.length > CAMPAIGN_LIMITS.contactIds) {
      errors.push({
        field: 'audience.contact_ids',
        message: `audience.contact_ids must name 1 to ${CAMPAIGN_LIMITS.contactIds} contacts`,
      });
    } else {
      let listed = 0;
      ids.forEach((ref, i) => {
        if (!isContactRef(ref) && listed++ < 10) {
          errors.push({ field: `audience.contact_ids[${i}]`, message: 'must be a contact id or ext:<external id>' });
        }
      });
    }
  }
  const filter = a.filter;
  if (filter !== undefined && filter !== null) {
    if (!isObject(filter))
      return [...errors, { field: 'audience.filter', message: 'audience.filter must be an object' }];
    errors.push(...unknownKeys(filter, ['lists', 'attributes', 'engagement'], 'audience.filter.'));
    errors.push(...engagementErrors(filter.engagement));
    const inner: FieldErrors = [];
    if (!absent(filter.lists)) parseLists(filter.lists, inner);
    if (!absent(filter.attributes)) parseAttributes(filter.attributes, inner);
    errors.push(...inner.map((e) => ({ field: `audience.filter.${e.field}`, message: e.message })));
  }
  return errors;
}

function scheduleErrors(s: unknown): FieldErrors {
  if (absent(s)) return [];
  if (!isObject(s)) return [{ field: 'schedule', message: 'schedule must be an object of start_at and end_by' }];
  const errors = unknownKeys(s, ['start_at', 'end_by'], 'schedule.');
  const times: Partial<Record<'start_at' | 'end_by', Date>> = {};
  for (const key of ['start_at', 'end_by'] as const) {
    if (absent(s[key])) continue;
    const at = campaignInstant(s[key]);
    if (at) times[key] = at;
    else
      errors.push({
        field: `schedule.${key}`,
        message: `${key} must be an ISO 8601 date-time with a zone (such as 2026-12-01T09:00:00+03:00) or Unix seconds`,
      });
  }
  if (times.start_at && times.end_by && times.end_by <= times.start_at) {
    errors.push({ field: 'schedule.end_by', message: 'end_by must be later than start_at' });
  }
  return errors;
}

function quietHoursErrors(q: unknown): FieldErrors {
  if (absent(q)) return [];
  if (!isObject(q))
    return [{ field: 'quiet_hours', message: 'quiet_hours must be {"start": "HH:MM", "end": "HH:MM"}' }];
  const errors = unknownKeys(q, ['start', 'end'], 'quiet_hours.');
  const start = minutesOf(q.start);
  const end = minutesOf(q.end);
  for (const [key, at] of [
    ['start', start],
    ['end', end],
  ] as const) {
    if (at === null)
      errors.push({ field: `quiet_hours.${key}`, message: `${key} must be a time of day HH:MM (00:00 to 23:59)` });
  }
  if (start !== null && start === end)
    errors.push({ field: 'quiet_hours.end', message: 'quiet_hours.end must differ from start' });
  return errors;
}

const inRange = (v: unknown, min: number, max: number, exclusiveMin = false): boolean =>
  typeof v === 'number' && Number.isFinite(v) && (exclusiveMin ? v > min : v >= min) && v <= max;

/**
 * Every field of a campaign definition that breaks a rule (an empty list: it is valid), unknown
 * fields included. What only the gateway can judge (the egress policy on `media_url`, whether the
 * contacts exist) is judged there besides.
 */
export function campaignDefinitionErrors(raw: unknown): FieldErrors {
  if (!isObject(raw)) return [{ field: 'body', message: 'must be a JSON object' }];
  const d = raw;
  const L = CAMPAIGN_LIMITS;
  const errors = unknownKeys(d, [...CAMPAIGN_DEFINITION_FIELDS], '');
  if (typeof d.name !== 'string' || !d.name.trim() || d.name.length > L.nameLength) {
    errors.push({ field: 'name', message: `name must be 1 to ${L.nameLength} characters, not only spaces` });
  }
  const isTemplateName = (v: unknown) => typeof v === 'string' && TEMPLATE_NAME.test(v);
  if (!absent(d.template) && !isTemplateName(d.template)) {
    errors.push({ field: 'template', message: 'template must be a template name (lowercase letters, digits, _)' });
  }
  if (!absent(d.language) && !(typeof d.language === 'string' && TEMPLATE_LANGUAGE.test(d.language))) {
    errors.push({ field: 'language', message: 'language must be a language code such as en or pt_BR' });
  }
  errors.push(...paramsErrors(d.params));
  const url = d.media_url;
  if (
    !absent(url) &&
    !(
      typeof url === 'string' &&
      url.length <= L.mediaUrlLength &&
      isURL(url, { protocols: ['https'], require_protocol: true })
    )
  ) {
    errors.push({ field: 'media_url', message: 'media_url must be an https URL' });
  }
  errors.push(...audienceErrors(d.audience));
  const channels = d.channels;
  if (
    !Array.isArray(channels) ||
    channels.length < 1 ||
    channels.length > L.channels ||
    new Set(channels).size !== channels.length ||
    !channels.every((c) => (GATEWAY_SEND_CHANNELS as readonly unknown[]).includes(c))
  ) {
    errors.push({
      field: 'channels',
      message: `channels must be 1 to ${L.channels} distinct channels of ${GATEWAY_SEND_CHANNELS.join(', ')}`,
    });
  }
  const known = Array.isArray(channels)
    ? channels.filter((c) => (GATEWAY_SEND_CHANNELS as readonly unknown[]).includes(c))
    : [];
  errors.push(...campaignContentErrors(d, known as string[], isTemplateName));
  errors.push(...scheduleErrors(d.schedule), ...quietHoursErrors(d.quiet_hours));
  if (!absent(d.rate) && !inRange(d.rate, L.minRate, L.maxRate)) {
    errors.push({ field: 'rate', message: `rate must be a number from ${L.minRate} to ${L.maxRate}` });
  }
  if (!absent(d.budget) && !inRange(d.budget, 0, L.maxBudget, true)) {
    errors.push({ field: 'budget', message: `budget must be a number above 0 and at most ${L.maxBudget}` });
  }
  if (!absent(d.frequency)) errors.push(...frequencyRulesErrors(d.frequency, 'frequency.'));
  errors.push(
    ...variantsErrors(d.variants, {
      template: isTemplateName,
      // A content campaign's variants are contents (docs/campaigns.md#variants).
      ...(absent(d.content) || !absent(d.template)
        ? {}
        : { content: (v: unknown) => campaignSendContentErrors(v, known as string[]) }),
      language: (v) => typeof v === 'string' && TEMPLATE_LANGUAGE.test(v),
      params: paramsErrors,
    }),
  );
  if (!absent(d.track_links) && typeof d.track_links !== 'boolean') {
    errors.push({ field: 'track_links', message: 'track_links must be true or false' });
  }
  return errors;
}
