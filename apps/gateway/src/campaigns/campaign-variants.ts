import { CampaignDefinition, variantIndexOf } from '@app/contracts';
import { CompiledParam, compileParams } from './campaign-params';

/** A campaign's variants ready to assign (docs/campaigns.md#variants): parsed once per campaign. */
export interface VariantAssignment {
  campaignId: string;
  shares: number[];
  /** Each variant's params, compiled. */
  params: CompiledParam[][];
}

/** The campaign's variants to assign each contact to; null when it has none. */
export function variantAssignment(campaign: CampaignDefinition & { id: string }): VariantAssignment | null {
  const variants = campaign.variants;
  if (!variants?.length) return null;
  return {
    campaignId: campaign.id,
    shares: variants.map((v) => v.share),
    // A content variant is sent with the campaign's params (its fallback template's).
    params: variants.map((v) => compileParams((v.content ? campaign.params : v.params) ?? [])),
  };
}

/**
 * The contact's variant and the params it is sent with: the campaign's own params without
 * variants, else its variant's, chosen by a hash of the campaign's and the contact's ids (the same
 * contact always gets the same variant of a campaign).
 */
export function contactVariant(
  v: VariantAssignment | null,
  contactId: string,
  campaignParams: CompiledParam[],
): { variant?: number; params: CompiledParam[] } {
  if (!v) return { params: campaignParams };
  const variant = variantIndexOf(v.campaignId, contactId, v.shares);
  return { variant, params: v.params[variant] };
}
