import { CampaignParamPart, campaignParamParts } from '@app/contracts';
import { AttributeValue } from '../contacts/contact-fields';

/** The contact fields a campaign's params may refer to. */
export interface ParamContact {
  name: string | null;
  external_id: string | null;
  language: string | null;
  attributes: Record<string, AttributeValue>;
}

/** A param split into literal text and references to the contact's fields. */
export type CompiledParam = CampaignParamPart[];

/** The params ready to fill for each contact (parsed once per campaign, not per recipient). */
export function compileParams(params: readonly string[]): CompiledParam[] {
  return params.map((text) => campaignParamParts(text).parts);
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
