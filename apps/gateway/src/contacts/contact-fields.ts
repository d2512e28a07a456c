import { GATEWAY_SEND_CHANNELS, GatewaySendChannel, primaryAddressKind } from '@app/contracts';
import { FieldError } from '@app/server';

/** A contact's identity on each channel: WhatsApp phone, Telegram chat id, MAX user id. */
export type Identities = Partial<Record<GatewaySendChannel, string | null>>;
export type AttributeValue = string | number;

/** What a create or an update sets; absent fields are left as they are (null clears). */
export interface ContactInput {
  external_id?: string | null;
  name?: string | null;
  identities?: Identities;
  time_zone?: string | null;
  language?: string | null;
  attributes?: Record<string, AttributeValue>;
  lists?: string[];
}

/** The bounds of a contact (docs/contacts.md#fields). */
export const CONTACT_LIMITS = {
  externalId: 128,
  name: 256,
  attributes: 50,
  attributeKey: 64,
  attributeValue: 256,
  lists: 20,
  listName: 64,
} as const;

const FIELDS = new Set(['external_id', 'name', 'identities', 'time_zone', 'language', 'attributes', 'lists']);
export const ATTRIBUTE_KEY = /^[A-Za-z0-9_.-]+$/;
const LIST_NAME = /^[\p{L}\p{N} _.-]+$/u;
const LANGUAGE = /^[a-z]{2,3}([_-][A-Za-z]{2,4})?$/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

const zones = new Map<string, boolean>();

/** Whether the runtime knows this IANA time zone (answers are remembered: imports ask often). */
export function isTimeZone(zone: string): boolean {
  let known = zones.get(zone);
  if (known === undefined) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: zone });
      known = zone.length <= 64;
    } catch {
      known = false;
    }
    if (zones.size < 10_000) zones.set(zone, known);
  }
  return known;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A text field: a string of 1 to `max` characters without control characters, or null (when allowed). */
function text(v: unknown, field: string, max: number, errors: FieldError[]): string | null | undefined {
  if (v === undefined || v === null) return v;
  if (typeof v !== 'string' || !v.trim() || v.length > max || CONTROL.test(v)) {
    errors.push({ field, message: `must be text of 1 to ${max} characters` });
    return undefined;
  }
  return v.trim();
}

/**
 * A contact's fields from a request body or an import row: every bad field is named (400 on the
 * API, a rejected row in an import), unknown fields are refused. `external_id`, chat ids and
 * lists are compared as given; a phone is read as people write it (national ones in `region`, the
 * account's default) and kept as international digits, as sends take it.
 */
export function parseContactInput(
  raw: unknown,
  region: string | null = null,
): { input: ContactInput; errors: FieldError[] } {
  const errors: FieldError[] = [];
  if (!isObject(raw)) return { input: {}, errors: [{ field: 'body', message: 'must be a JSON object' }] };
  for (const key of Object.keys(raw)) if (!FIELDS.has(key)) errors.push({ field: key, message: 'is not a field' });
  const input: ContactInput = {};
  const externalId = text(raw.external_id, 'external_id', CONTACT_LIMITS.externalId, errors);
  if (externalId !== undefined) input.external_id = externalId;
  const name = text(raw.name, 'name', CONTACT_LIMITS.name, errors);
  if (name !== undefined) input.name = name;
  if (raw.identities !== undefined) {
    if (!isObject(raw.identities)) errors.push({ field: 'identities', message: 'must be an object' });
    else {
      const identities: Identities = {};
      for (const [channel, value] of Object.entries(raw.identities)) {
        const field = `identities.${channel}`;
        if (!(GATEWAY_SEND_CHANNELS as readonly string[]).includes(channel)) {
          errors.push({ field, message: `is not a channel (${GATEWAY_SEND_CHANNELS.join(', ')})` });
          continue;
        }
        const kind = primaryAddressKind(channel)!;
        const read = typeof value === 'string' ? kind.canonical(value, { defaultRegion: region }) : null;
        if (value === null) identities[channel as GatewaySendChannel] = null;
        else if (read === null) errors.push({ field, message: kind.message });
        else identities[channel as GatewaySendChannel] = read;
      }
      input.identities = identities;
    }
  }
  if (raw.time_zone !== undefined) {
    if (raw.time_zone === null) input.time_zone = null;
    else if (typeof raw.time_zone !== 'string' || !isTimeZone(raw.time_zone))
      errors.push({ field: 'time_zone', message: 'must be an IANA time zone such as Europe/Moscow' });
    else input.time_zone = raw.time_zone;
  }
  if (raw.language !== undefined) {
    if (raw.language === null) input.language = null;
    else if (typeof raw.language !== 'string' || !LANGUAGE.test(raw.language))
      errors.push({ field: 'language', message: 'must be a language code such as en or pt_BR' });
    else input.language = raw.language;
  }
  if (raw.attributes !== undefined) {
    const attributes = parseAttributes(raw.attributes, errors);
    if (attributes) input.attributes = attributes;
  }
  if (raw.lists !== undefined) {
    const lists = parseLists(raw.lists, errors);
    if (lists) input.lists = lists;
  }
  return { input, errors };
}

/** A contact's attributes (or an audience's attribute filter): every bad key named in `errors`. */
export function parseAttributes(v: unknown, errors: FieldError[]): Record<string, AttributeValue> | null {
  if (!isObject(v)) {
    errors.push({ field: 'attributes', message: 'must be an object of strings and numbers' });
    return null;
  }
  const entries = Object.entries(v);
  if (entries.length > CONTACT_LIMITS.attributes) {
    errors.push({ field: 'attributes', message: `may have at most ${CONTACT_LIMITS.attributes} keys` });
    return null;
  }
  const out: Record<string, AttributeValue> = {};
  for (const [key, value] of entries) {
    const field = `attributes.${key.slice(0, CONTACT_LIMITS.attributeKey)}`;
    if (key.length > CONTACT_LIMITS.attributeKey || !ATTRIBUTE_KEY.test(key)) {
      errors.push({ field, message: `keys are 1 to ${CONTACT_LIMITS.attributeKey} letters, digits, _ . -` });
    } else if (key === '__proto__') {
      // Assigned to an object, it would set the prototype and vanish: refused rather than lost.
      errors.push({ field, message: 'is a reserved name' });
    } else if (typeof value === 'number' && Number.isFinite(value)) out[key] = value;
    else if (typeof value === 'string' && value.length <= CONTACT_LIMITS.attributeValue && !CONTROL.test(value))
      out[key] = value;
    else
      errors.push({
        field,
        message: `must be a number or text of at most ${CONTACT_LIMITS.attributeValue} characters`,
      });
  }
  return out;
}

/** A set of list names (a contact's, or an audience's list filter), or null with the error. */
export function parseLists(v: unknown, errors: FieldError[]): string[] | null {
  if (
    !Array.isArray(v) ||
    v.length > CONTACT_LIMITS.lists ||
    !v.every((l) => typeof l === 'string' && l.length <= CONTACT_LIMITS.listName && LIST_NAME.test(l) && l.trim())
  ) {
    errors.push({
      field: 'lists',
      message: `must be at most ${CONTACT_LIMITS.lists} list names of 1 to ${CONTACT_LIMITS.listName} letters, digits, spaces, _ . -`,
    });
    return null;
  }
  return [...new Set((v as string[]).map((l) => l.trim()))];
}
