/**
 * The bounds and shapes of a contact's list names and attributes (docs/contacts.md#fields): the
 * gateway's contacts take them, and a campaign's audience filter is checked by the same rules
 * wherever a definition is received.
 */
export const CONTACT_LIMITS = {
  externalId: 128,
  name: 256,
  attributes: 50,
  attributeKey: 64,
  attributeValue: 256,
  lists: 20,
  listName: 64,
} as const;

export type AttributeValue = string | number;

type FieldErrors = { field: string; message: string }[];

export const ATTRIBUTE_KEY = /^[A-Za-z0-9_.-]+$/;
const LIST_NAME = /^[\p{L}\p{N} _.-]+$/u;
// eslint-disable-next-line no-control-regex
export const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A contact's attributes (or an audience's attribute filter): every bad key named in `errors`. */
export function parseAttributes(v: unknown, errors: FieldErrors): Record<string, AttributeValue> | null {
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
    else if (
      typeof value === 'string' &&
      value.length <= CONTACT_LIMITS.attributeValue &&
      !CONTROL_CHARACTER.test(value)
    )
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
export function parseLists(v: unknown, errors: FieldErrors): string[] | null {
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

/** How a reference names a contact by its external id: `ext:<external id>` (otherwise by its id). */
export const EXTERNAL_PREFIX = 'ext:';
