import { createHash } from 'node:crypto';
import type { SendContent } from './content';

/**
 * A campaign's variants (docs/campaigns.md#variants): 2 to 4 templates (each with its own params
 * and language) sharing the audience by percentage. Each recipient is assigned one by a hash of the
 * campaign's id and the contact's id, so the same contact always gets the same variant of a
 * campaign (an interrupted launch loaded again included), and the report compares them.
 */
export interface CampaignVariant {
  /** 1 to 50 characters, distinct within the campaign. */
  name: string;
  /** A template campaign's variant: its template (absent in a content campaign's). */
  template?: string;
  /** A content campaign's variant: its content (docs/campaigns.md#content-campaigns). */
  content?: SendContent | null;
  language?: string | null;
  /** One per template variable, with contact references as the campaign's `params`. */
  params?: string[];
  /** A whole percentage of the audience, 1 to 99; the variants' shares sum to 100. */
  share: number;
}

export const VARIANT_LIMITS = { min: 2, max: 4, nameLength: 50, shareTotal: 100 } as const;

const TEMPLATE_FIELDS = ['name', 'template', 'language', 'params', 'share'];
const CONTENT_FIELDS = ['name', 'content', 'share'];

type FieldErrors = { field: string; message: string }[];

/** The checks a variant's fields share with the campaign's own `template`, `language` and `params`. */
export interface VariantFieldChecks {
  template: (v: unknown) => boolean;
  language: (v: unknown) => boolean;
  /** The params' errors, named `params` and `params[i]`. */
  params: (v: unknown) => FieldErrors;
  /**
   * Given for a content campaign, whose variants are contents (each `{name, content, share}`):
   * the content's errors, named `content` and `content.<field>`.
   */
  content?: (v: unknown) => FieldErrors;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every rule `variants` breaks (an empty list when absent or valid), each field named `variants[i].<field>`. */
export function variantsErrors(raw: unknown, checks: VariantFieldChecks): FieldErrors {
  if (raw === undefined || raw === null) return [];
  const { min, max, nameLength, shareTotal } = VARIANT_LIMITS;
  if (!Array.isArray(raw) || raw.length < min || raw.length > max) {
    return [{ field: 'variants', message: `variants must be ${min} to ${max} variants` }];
  }
  const errors: FieldErrors = [];
  const names = new Set<string>();
  let total = 0;
  let sharesOk = true;
  raw.forEach((v: unknown, i) => {
    const at = `variants[${i}]`;
    const fields = checks.content ? CONTENT_FIELDS : TEMPLATE_FIELDS;
    if (!isObject(v)) {
      errors.push({ field: at, message: `must be an object of ${fields.join(', ')}` });
      sharesOk = false;
      return;
    }
    for (const k of Object.keys(v))
      if (!fields.includes(k)) errors.push({ field: `${at}.${k}`, message: 'is not a field' });
    if (typeof v.name !== 'string' || !v.name.trim() || v.name.length > nameLength) {
      errors.push({ field: `${at}.name`, message: `name must be 1 to ${nameLength} characters, not only spaces` });
    } else if (names.has(v.name.trim())) {
      errors.push({ field: `${at}.name`, message: 'name must differ from the other variants' });
    } else names.add(v.name.trim());
    if (checks.content) {
      errors.push(...checks.content(v.content).map((e) => ({ field: `${at}.${e.field}`, message: e.message })));
    } else {
      if (!checks.template(v.template)) {
        errors.push({
          field: `${at}.template`,
          message: 'template must be a template name (lowercase letters, digits, _)',
        });
      }
      if (v.language !== undefined && v.language !== null && !checks.language(v.language)) {
        errors.push({ field: `${at}.language`, message: 'language must be a language code such as en or pt_BR' });
      }
      errors.push(...checks.params(v.params).map((e) => ({ field: `${at}.${e.field}`, message: e.message })));
    }
    if (!Number.isInteger(v.share) || (v.share as number) < 1 || (v.share as number) >= shareTotal) {
      errors.push({ field: `${at}.share`, message: `share must be a whole percentage from 1 to ${shareTotal - 1}` });
      sharesOk = false;
    } else total += v.share as number;
  });
  if (sharesOk && total !== shareTotal) {
    errors.push({
      field: 'variants',
      message: `the variants' shares must sum to ${shareTotal} (they sum to ${total})`,
    });
  }
  return errors;
}

/**
 * A checked variant as kept: the name trimmed; a template's with language null and params empty
 * when absent, a content's with its content alone.
 */
export function normalizedVariant(v: CampaignVariant): CampaignVariant {
  if (v.content) return { name: v.name.trim(), content: v.content, share: v.share };
  return {
    name: v.name.trim(),
    template: v.template,
    language: v.language ?? null,
    params: v.params ?? [],
    share: v.share,
  };
}

/**
 * The variant a contact gets: the first 4 bytes of SHA-256 of `<campaign id>:<contact id>` (both
 * lower case) give a point from 0 to 99, and the variants' shares cover 0-99 in their order.
 */
export function variantIndexOf(campaignId: string, contactId: string, shares: readonly number[]): number {
  const digest = createHash('sha256').update(`${campaignId.toLowerCase()}:${contactId.toLowerCase()}`).digest();
  const point = digest.readUInt32BE(0) % VARIANT_LIMITS.shareTotal;
  let upTo = 0;
  for (let i = 0; i < shares.length; i++) {
    upTo += shares[i];
    if (point < upTo) return i;
  }
  return shares.length - 1;
}

/** How one variant did, in `GET /v1/campaigns/{id}` (`variant_results`), counted once per recipient. */
export interface CampaignVariantResult {
  name: string;
  /** Its template; null for a content campaign's variant. */
  template: string | null;
  share: number;
  /** Recipients assigned to it (excluded ones included). */
  recipients: number;
  /** Recipients whose message the send path accepted. */
  accepted: number;
  /** Reached the channel (sent, delivered or read). */
  sent: number;
  /** Delivered or read. */
  delivered: number;
  read: number;
  failed: number;
  /** What its messages were charged (captured), in the balance's currency. */
  cost: number;
  /** With tracked links: its recipients who clicked one. */
  clicked?: number;
  /** Its recipients who replied to their message (docs/campaigns.md#replies). */
  replied: number;
}
