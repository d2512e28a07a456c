import { FieldError } from '@app/server';
import { ATTRIBUTE_KEY, AttributeValue, CONTACT_LIMITS } from '../contacts/contact-fields';

/** The contact fields a campaign's params may refer to. */
export interface ParamContact {
  name: string | null;
  external_id: string | null;
  language: string | null;
  attributes: Record<string, AttributeValue>;
}

type Part = string | { field: 'name' | 'external_id' | 'language' } | { attribute: string };

/** A param split into literal text and references to the contact's fields. */
export type CompiledParam = Part[];

const REFERENCE = /\{\{([^{}]*)\}\}/g;
const FIELDS = new Set(['name', 'external_id', 'language']);
const ATTRIBUTES = 'attributes.';

/** What `{{ ... }}` names, or null when it is no field a param may refer to. */
function referenceOf(inner: string): Exclude<Part, string> | null {
  const ref = inner.trim();
  if (!ref.startsWith('contact.')) return null;
  const path = ref.slice('contact.'.length);
  if (FIELDS.has(path)) return { field: path as 'name' | 'external_id' | 'language' };
  if (!path.startsWith(ATTRIBUTES)) return null;
  const key = path.slice(ATTRIBUTES.length);
  return key.length <= CONTACT_LIMITS.attributeKey && ATTRIBUTE_KEY.test(key) ? { attribute: key } : null;
}

/** One param's parts, or the references it makes that name no contact field. */
function compileParam(text: string): { parts: CompiledParam; unknown: string[] } {
  const parts: CompiledParam = [];
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

/** Every `{{...}}` of the params that names no contact field, as a field error naming `params[i]`. */
export function paramErrors(params: readonly string[]): FieldError[] {
  const errors: FieldError[] = [];
  params.forEach((text, i) => {
    const { unknown } = compileParam(text);
    if (unknown.length) {
      errors.push({
        field: `params[${i}]`,
        message: `${unknown[0].slice(0, 80)} is not a contact field: use {{contact.name}}, {{contact.external_id}}, {{contact.language}} or {{contact.attributes.<key>}}`,
      });
    }
  });
  return errors;
}

/** The params ready to fill for each contact (parsed once per campaign, not per recipient). */
export function compileParams(params: readonly string[]): CompiledParam[] {
  return params.map((text) => compileParam(text).parts);
}

/** Whether a compiled param refers to any field of the contact. */
const literal = (param: CompiledParam): param is string[] => param.every((p) => typeof p === 'string');

/**
 * The contact's own attribute: a key every object inherits (`constructor`, `__proto__`,
 * `toString`) is no attribute of the contact, so it is missing like any other it was never given.
 */
const attributeOf = (contact: ParamContact, key: string): AttributeValue | undefined =>
  Object.hasOwn(contact.attributes, key) ? contact.attributes[key] : undefined;

/**
 * The params with the contact's fields filled in (attributes as text), or null when a field a
 * param refers to is empty or missing (the recipient is skipped as `missing_param`).
 */
export function fillParams(params: readonly CompiledParam[], contact: ParamContact): string[] | null {
  const out: string[] = [];
  for (const param of params) {
    if (literal(param)) {
      out.push(param.join(''));
      continue;
    }
    let text = '';
    for (const part of param) {
      if (typeof part === 'string') {
        text += part;
        continue;
      }
      const value = 'field' in part ? contact[part.field] : attributeOf(contact, part.attribute);
      const filled = value === null || value === undefined ? '' : String(value);
      if (!filled.trim()) return null;
      text += filled;
    }
    out.push(text);
  }
  return out;
}
