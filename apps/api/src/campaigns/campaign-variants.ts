import { CampaignDefinition, CampaignRecipientInput } from '@app/contracts';
import { FieldError } from '@app/server';
import type { CampaignSendable } from './campaign-template';
import type { CampaignRow } from './campaigns.repository';

/**
 * A load page's variants checked against the campaign (docs/campaigns.md#variants): with variants,
 * each recipient names one of them by its index; without, none does.
 */
export function variantLoadErrors(page: CampaignRecipientInput[], definition: CampaignDefinition): FieldError[] {
  const count = definition.variants?.length ?? 0;
  const errors: FieldError[] = [];
  page.forEach((r, i) => {
    const v = r.variant;
    const ok = count
      ? Number.isInteger(v) && (v as number) >= 0 && (v as number) < count
      : v === undefined || v === null;
    if (!ok && errors.length < 20) {
      errors.push({
        field: `recipients[${i}].variant`,
        message: count
          ? `must be the index of one of the campaign's ${count} variants`
          : 'the campaign has no variants',
      });
    }
  });
  return errors;
}

/**
 * The campaign with a variant's template, language and params in place of its own; a content
 * variant's content in place of the campaign's (its fallback template and params stay the campaign's).
 */
export function withVariant(c: CampaignRow, index: number): CampaignRow {
  const v = c.definition.variants![index];
  if (v.content) return { ...c, definition: { ...c.definition, content: v.content } };
  return {
    ...c,
    definition: { ...c.definition, template: v.template, language: v.language ?? null, params: v.params ?? [] },
  };
}

/**
 * What each of these recipients is sent with: the campaign's template, or its variant's. Each
 * variant among them is resolved once (the problem a send would answer if one no longer sends).
 */
export async function campaignSendables(
  c: CampaignRow,
  recipients: readonly { variant?: number | null }[],
  resolve: (c: CampaignRow) => Promise<CampaignSendable>,
): Promise<(r: { variant?: number | null }) => CampaignSendable> {
  const variants = c.definition.variants;
  if (!variants?.length) {
    const one = await resolve(c);
    return () => one;
  }
  const wanted = [...new Set(recipients.map((r) => r.variant ?? 0))].filter((i) => i >= 0 && i < variants.length);
  const byVariant = new Map<number, CampaignSendable>();
  for (const i of wanted) byVariant.set(i, await resolve(withVariant(c, i)));
  return (r) => byVariant.get(r.variant ?? 0)!;
}
