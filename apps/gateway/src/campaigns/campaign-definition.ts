import {
  CAMPAIGN_DEFINITION_FIELDS,
  CAMPAIGN_LIMITS,
  campaignDefinitionErrors,
  CampaignDefinition,
  campaignInstant,
  unixSeconds,
} from '@app/contracts';
import { FieldError, findUnboundedInput, INPUT_LIMITS, ValidationProblem } from '@app/server';
import { CONTACT_LIMITS } from '../contacts/contact-fields';

/** Fields a PATCH may clear with null. */
const OPTIONAL = new Set<string>([
  'language',
  'params',
  'media_url',
  'schedule',
  'quiet_hours',
  'rate',
  'budget',
  'frequency',
  'variants',
  'track_links',
]);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The bounds every request body has (INPUT_LIMITS), except that an audience may name up to
 * 10,000 contacts: those are checked as strings here and the rest of the body by the usual rule.
 */
function unbounded(raw: Record<string, unknown>): FieldError | null {
  const audience = raw.audience;
  if (isObject(audience) && Array.isArray(audience.contact_ids)) {
    const ids = audience.contact_ids as unknown[];
    if (ids.length > CAMPAIGN_LIMITS.contactIds) {
      return {
        field: 'audience.contact_ids',
        message: `audience.contact_ids must name 1 to ${CAMPAIGN_LIMITS.contactIds} contacts`,
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
 * field named in one 400 problem by the definition's one check (the api runs it too), and the
 * media URL checked by `checkUrl`, the egress policy (the reason it is refused, or null).
 */
export function parseCampaignDefinition(raw: unknown, checkUrl: (url: string) => string | null): CampaignDefinition {
  if (!isObject(raw)) throw new ValidationProblem([{ field: 'body', message: 'must be a JSON object' }]);
  const refused = unbounded(raw);
  if (refused) throw new ValidationProblem([refused]);
  const errors: FieldError[] = campaignDefinitionErrors(raw);
  if (typeof raw.media_url === 'string' && !errors.some((e) => e.field === 'media_url')) {
    const reason = checkUrl(raw.media_url);
    if (reason) errors.push({ field: 'media_url', message: `media_url ${reason}` });
  }
  if (errors.length) throw new ValidationProblem(errors.slice(0, INPUT_LIMITS.listedErrors));
  return definitionOf(raw);
}

/** The definition as stored: the fields given, nothing else, params defaulting to none. */
function definitionOf(raw: Record<string, unknown>): CampaignDefinition {
  const out = definitionFields(raw);
  out.params ??= [];
  return out as unknown as CampaignDefinition;
}

/** The definition part of a stored campaign (the api's view carries it beside its state). */
export function storedDefinition(view: CampaignDefinition): Record<string, unknown> {
  return definitionFields(view as unknown as Record<string, unknown>);
}

/** The definition's fields that `source` gives, in their order, nothing else. */
function definitionFields(source: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of CAMPAIGN_DEFINITION_FIELDS) if (source[key] !== undefined) out[key] = source[key];
  return out;
}

/**
 * A campaign as the gateway answers it: its schedule's times as Unix seconds like every time it
 * answers, whichever form the business wrote them in (the api keeps them as written); an absent or
 * null time stays so.
 */
export function campaignAnswer<T extends CampaignDefinition>(view: T): T {
  if (!view.schedule) return view;
  const schedule = { ...view.schedule };
  for (const key of ['start_at', 'end_by'] as const) {
    const at = campaignInstant(schedule[key]);
    if (at) schedule[key] = unixSeconds(at);
  }
  return { ...view, schedule };
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
    if (value !== null || !(CAMPAIGN_DEFINITION_FIELDS as readonly string[]).includes(key)) merged[key] = value;
    else if (OPTIONAL.has(key)) delete merged[key];
    else errors.push({ field: key, message: `${key} cannot be cleared` });
  }
  if (errors.length) throw new ValidationProblem(errors.slice(0, INPUT_LIMITS.listedErrors));
  return merged;
}
