import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { CampaignDefinition, isUuid } from '@app/contracts';
import {
  FieldError,
  findUnboundedInput,
  flattenValidationErrors,
  INPUT_LIMITS,
  isCalendarDate,
  ValidationProblem,
} from '@app/server';
import { CONTACT_LIMITS, parseAttributes, parseLists } from '../contacts/contact-fields';
import { EXTERNAL_PREFIX } from '../contacts/contacts.service';
import { paramErrors } from './campaign-params';
import { CampaignDefinitionDto, MAX_AUDIENCE_CONTACT_IDS } from './dto/campaign-definition.dto';

/** The fields of a definition, in the order a stored one is rebuilt. */
const FIELDS = [
  'name',
  'template',
  'language',
  'params',
  'media_url',
  'audience',
  'channels',
  'schedule',
  'quiet_hours',
  'rate',
  'budget',
] as const;

/** Fields a PATCH may clear with null. */
const OPTIONAL = new Set<string>(['language', 'params', 'media_url', 'schedule', 'quiet_hours', 'rate', 'budget']);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether a string names a contact: its id, or ext:<external id>. */
export function isContactRef(ref: string): boolean {
  if (ref.startsWith(EXTERNAL_PREFIX)) {
    const external = ref.slice(EXTERNAL_PREFIX.length);
    return external.length > 0 && external.length <= CONTACT_LIMITS.externalId;
  }
  return isUuid(ref);
}

/**
 * The bounds every request body has (INPUT_LIMITS), except that an audience may name up to
 * 10,000 contacts: those are checked as strings here and the rest of the body by the usual rule.
 */
function unbounded(raw: Record<string, unknown>): FieldError | null {
  const audience = raw.audience;
  if (isObject(audience) && Array.isArray(audience.contact_ids)) {
    const ids = audience.contact_ids as unknown[];
    if (ids.length > MAX_AUDIENCE_CONTACT_IDS) {
      return {
        field: 'audience.contact_ids',
        message: `audience.contact_ids must name 1 to ${MAX_AUDIENCE_CONTACT_IDS} contacts`,
      };
    }
    const bad = ids.findIndex((id) => typeof id !== 'string' || id.length > CONTACT_LIMITS.externalId + 4);
    if (bad >= 0)
      return { field: `audience.contact_ids[${bad}]`, message: 'must be a contact id or ext:<external id>' };
    const shown = ids.slice(0, INPUT_LIMITS.arrayItems);
    return findUnboundedInput({ ...raw, audience: { ...audience, contact_ids: shown } });
  }
  return findUnboundedInput(raw);
}

/**
 * A campaign's definition from a request body (or a PATCH merged into the stored one): every bad
 * field named in one 400 problem, unknown fields refused, params' references checked, and the
 * media URL checked by `checkUrl` (the reason it is refused, or null).
 */
export async function parseCampaignDefinition(
  raw: unknown,
  checkUrl: (url: string) => string | null,
): Promise<CampaignDefinition> {
  if (!isObject(raw)) throw new ValidationProblem([{ field: 'body', message: 'must be a JSON object' }]);
  const refused = unbounded(raw);
  if (refused) throw new ValidationProblem([refused]);
  const dto = plainToInstance(CampaignDefinitionDto, raw);
  const errors = flattenValidationErrors(
    await validate(dto, { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true }),
  );
  const failed = new Set(errors.map((e) => e.field));
  if (Array.isArray(dto.params) && !failed.has('params')) {
    errors.push(...paramErrors(dto.params.filter((p) => typeof p === 'string')));
  }
  if (typeof dto.media_url === 'string' && !failed.has('media_url')) {
    const reason = checkUrl(dto.media_url);
    if (reason) errors.push({ field: 'media_url', message: `media_url ${reason}` });
  }
  errors.push(...audienceErrors(raw.audience, failed));
  errors.push(...scheduleErrors(dto, failed));
  if (dto.quiet_hours && !failed.has('quiet_hours.start') && !failed.has('quiet_hours.end')) {
    if (dto.quiet_hours.start === dto.quiet_hours.end) {
      errors.push({ field: 'quiet_hours.end', message: 'quiet_hours.end must differ from start' });
    }
  }
  if (errors.length) throw new ValidationProblem(errors.slice(0, INPUT_LIMITS.listedErrors));
  return definitionOf(raw);
}

function audienceErrors(audience: unknown, failed: Set<string>): FieldError[] {
  if (!isObject(audience)) return [];
  const errors: FieldError[] = [];
  const given = (['list', 'contact_ids', 'filter'] as const).filter((k) => audience[k] !== undefined);
  if (given.length !== 1) {
    errors.push({ field: 'audience', message: 'audience must name exactly one of list, contact_ids, filter' });
  }
  if (typeof audience.list === 'string' && !failed.has('audience.list')) {
    if (!parseLists([audience.list], [])) {
      errors.push({
        field: 'audience.list',
        message: 'audience.list must be a list name (letters, digits, spaces, _ . -)',
      });
    }
  }
  if (Array.isArray(audience.contact_ids) && !failed.has('audience.contact_ids')) {
    let listed = 0;
    (audience.contact_ids as string[]).forEach((ref, i) => {
      if (!isContactRef(ref) && listed++ < 10) {
        errors.push({ field: `audience.contact_ids[${i}]`, message: 'must be a contact id or ext:<external id>' });
      }
    });
  }
  const filter = audience.filter;
  if (isObject(filter)) {
    const inner: FieldError[] = [];
    if (Array.isArray(filter.lists) && !failed.has('audience.filter.lists')) parseLists(filter.lists, inner);
    if (isObject(filter.attributes) && !failed.has('audience.filter.attributes')) {
      parseAttributes(filter.attributes, inner);
    }
    errors.push(...inner.map((e) => ({ field: `audience.filter.${e.field}`, message: e.message })));
  }
  return errors;
}

function scheduleErrors(dto: CampaignDefinitionDto, failed: Set<string>): FieldError[] {
  const errors: FieldError[] = [];
  const times: Record<string, number> = {};
  for (const key of ['start_at', 'end_by'] as const) {
    const value = dto.schedule?.[key];
    const field = `schedule.${key}`;
    if (typeof value !== 'string' || failed.has(field)) continue;
    const ms = Date.parse(value);
    if (!Number.isFinite(ms) || !isCalendarDate(value.slice(0, 10))) {
      errors.push({ field, message: `${key} is not a valid date-time` });
    } else times[key] = ms;
  }
  if (times.start_at !== undefined && times.end_by !== undefined && times.end_by <= times.start_at) {
    errors.push({ field: 'schedule.end_by', message: 'end_by must be later than start_at' });
  }
  return errors;
}

/** The definition as stored: the fields given, nothing else, params defaulting to none. */
function definitionOf(raw: Record<string, unknown>): CampaignDefinition {
  const out: Record<string, unknown> = {};
  for (const key of FIELDS) if (raw[key] !== undefined) out[key] = raw[key];
  out.params ??= [];
  return out as unknown as CampaignDefinition;
}

/** The definition part of a stored campaign (the api's view carries it beside its state). */
export function storedDefinition(view: CampaignDefinition): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of FIELDS) if (view[key] !== undefined) out[key] = view[key];
  return out;
}

/**
 * A PATCH merged into the stored definition: each field given replaces the stored one, `null`
 * clears an optional one (clearing a required one is refused). The result is validated whole.
 */
export function mergeDefinition(stored: Record<string, unknown>, patch: unknown): Record<string, unknown> {
  if (!isObject(patch)) throw new ValidationProblem([{ field: 'body', message: 'must be a JSON object' }]);
  const errors: FieldError[] = [];
  const merged: Record<string, unknown> = { ...stored };
  for (const [key, value] of Object.entries(patch)) {
    if (value !== null || !(FIELDS as readonly string[]).includes(key)) merged[key] = value;
    else if (OPTIONAL.has(key)) delete merged[key];
    else errors.push({ field: key, message: `${key} cannot be cleared` });
  }
  if (errors.length) throw new ValidationProblem(errors.slice(0, INPUT_LIMITS.listedErrors));
  return merged;
}
