import {
  CAMPAIGN_DEFINITION_FIELDS,
  CAMPAIGN_LIMITS,
  campaignDefinitionErrors,
  CampaignDefinition,
  campaignInstant,
  unixSeconds,
} from '@app/contracts';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { FieldError, findUnboundedInput, flattenValidationErrors, INPUT_LIMITS, ValidationProblem } from '@app/server';
import { CONTACT_LIMITS } from '../contacts/contact-fields';
import { SendContentDto } from '../messages/dto/send-gateway-message.dto';

/** Fields a PATCH may clear with null. */
const OPTIONAL = new Set<string>([
  // One of template and content stays: the definition's check says so when neither does.
  'template',
  'content',
  'fallback_template',
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
  // Each content (the campaign's, its variants') is first checked by POST /v1/messages' own validator.
  const contents = contentsOf(raw);
  const shape = contents.flatMap(([at, content]) => contentShapeErrors(content, at));
  // Its other fields are named too, the contents standing in as a valid one.
  const errors: FieldError[] = shape.length
    ? [...shape, ...campaignDefinitionErrors(withContents(raw, { type: 'text', text: '-' }))]
    : campaignDefinitionErrors(raw);
  const urls: [string, unknown][] = [
    ['media_url', raw.media_url],
    ...contents.map(([at, c]): [string, unknown] => [`${at}.url`, isObject(c) ? c.url : undefined]),
  ];
  for (const [field, url] of urls) {
    if (typeof url !== 'string' || errors.some((e) => e.field === field)) continue;
    const reason = checkUrl(url);
    if (reason) errors.push({ field, message: `${field} ${reason}` });
  }
  if (errors.length) throw new ValidationProblem(errors.slice(0, INPUT_LIMITS.listedErrors));
  return definitionOf(raw);
}

/** The contents a definition sends, each with where it is: `content`, `variants[<i>].content`. */
export function contentsOf(raw: Record<string, unknown>): [string, unknown][] {
  const out: [string, unknown][] = [];
  if (raw.content !== undefined && raw.content !== null) out.push(['content', raw.content]);
  if (Array.isArray(raw.variants)) {
    raw.variants.forEach((v: unknown, i) => {
      if (isObject(v) && v.content !== undefined && v.content !== null) out.push([`variants[${i}].content`, v.content]);
    });
  }
  return out;
}

/** The definition with each content it sends replaced by `content`. */
function withContents(raw: Record<string, unknown>, content: unknown): Record<string, unknown> {
  const variants = Array.isArray(raw.variants)
    ? raw.variants.map((v: unknown) =>
        isObject(v) && v.content !== undefined && v.content !== null ? { ...v, content } : v,
      )
    : raw.variants;
  const out = { ...raw, variants };
  if (raw.variants === undefined) delete out.variants;
  return raw.content === undefined || raw.content === null ? out : { ...out, content };
}

/** A content checked by the validator `POST /v1/messages` uses, each field named `<at>.<field>`. */
function contentShapeErrors(content: unknown, at: string): FieldError[] {
  if (!isObject(content)) return [{ field: at, message: `${at} must be an object` }];
  const errors = validateSync(plainToInstance(SendContentDto, content), {
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
  });
  return flattenValidationErrors(errors, at);
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
