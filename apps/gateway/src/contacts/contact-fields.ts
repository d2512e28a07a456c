import {
  AttributeValue,
  CONTACT_LIMITS,
  CONTROL_CHARACTER,
  addressChannels,
  addressKindsOf,
  ContactAddress,
  GatewaySendChannel,
  parseAttributes,
  parseLists,
} from '@app/contracts';
import { FieldError } from '@app/server';
import { addressKey, AddressSet, MAX_CONTACT_ADDRESSES, readContactAddress } from './contact-addresses';

/** A contact's identity on each channel: WhatsApp phone, Telegram chat id, MAX user id. */
export type Identities = Partial<Record<GatewaySendChannel, string | null>>;
// The bounds, list names and attributes are ruled in @app/contracts, beside campaigns' audience filters.
export { CONTACT_LIMITS } from '@app/contracts';
export type { AttributeValue } from '@app/contracts';

/** What a create or an update sets; absent fields are left as they are (null clears). */
export interface ContactInput {
  external_id?: string | null;
  name?: string | null;
  /** From `identities` (a channel's primary kind, or `<channel>:<kind>`): each kind set or cleared. */
  addressSets?: AddressSet[];
  /** From `addresses`: every address of the contact, replacing those it had (before `addressSets`). */
  addresses?: ContactAddress[];
  time_zone?: string | null;
  language?: string | null;
  attributes?: Record<string, AttributeValue>;
  lists?: string[];
}

const FIELDS = new Set([
  'external_id',
  'name',
  'identities',
  'addresses',
  'time_zone',
  'language',
  'attributes',
  'lists',
]);
const LANGUAGE = /^[a-z]{2,3}([_-][A-Za-z]{2,4})?$/;

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
  if (typeof v !== 'string' || !v.trim() || v.length > max || CONTROL_CHARACTER.test(v)) {
    errors.push({ field, message: `must be text of 1 to ${max} characters` });
    return undefined;
  }
  return v.trim();
}

/**
 * `identities`: a channel's primary address (`whatsapp`: its phone) or an address of a named kind
 * (`whatsapp:user_id`), each set to a value or cleared with null.
 */
function parseIdentities(raw: Record<string, unknown>, region: string | null, errors: FieldError[]): AddressSet[] {
  const sets: AddressSet[] = [];
  for (const [key, value] of Object.entries(raw)) {
    const field = `identities.${key}`;
    const [channel, named] = key.split(':', 2);
    const kinds = addressKindsOf(channel);
    const kind = named === undefined ? kinds[0] : kinds.find((k) => k.kind === named);
    if (!kind) {
      errors.push({
        field,
        message: kinds.length
          ? `is not a kind of ${channel} address (${kinds.map((k) => k.kind).join(', ')})`
          : `is not a channel (${addressChannels().join(', ')})`,
      });
      continue;
    }
    const read = typeof value === 'string' ? kind.canonical(value, { defaultRegion: region }) : null;
    if (value === null) sets.push({ channel, kind: kind.kind, value: null });
    else if (read === null) errors.push({ field, message: kind.message });
    else sets.push({ channel, kind: kind.kind, value: read });
  }
  return sets;
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
    else input.addressSets = parseIdentities(raw.identities, region, errors);
  }
  if (raw.addresses !== undefined) {
    if (!Array.isArray(raw.addresses) || raw.addresses.length > MAX_CONTACT_ADDRESSES) {
      errors.push({ field: 'addresses', message: `must be a list of at most ${MAX_CONTACT_ADDRESSES} addresses` });
    } else {
      const addresses = raw.addresses.map((a: unknown, i) => {
        const field = `addresses[${i}]`;
        if (!isObject(a)) errors.push({ field, message: 'must be an object with channel, kind and value' });
        return isObject(a) ? readContactAddress(a.channel, a.kind, a.value, field, region, errors) : null;
      });
      const unique = new Map(addresses.filter((a) => a !== null).map((a) => [addressKey(a), a]));
      input.addresses = [...unique.values()];
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
