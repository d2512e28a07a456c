import { CampaignDefinition, isUuid } from '@app/contracts';
import { contentsOf } from '../../campaigns/campaign-definition';

/** The media library files a campaign's contents send (its `content`, its variants'), each once. */
export function campaignMediaIds(definition: CampaignDefinition): string[] {
  const ids = new Set<string>();
  for (const [, content] of contentsOf(definition as unknown as Record<string, unknown>)) {
    const mediaId = (content as { media_id?: unknown }).media_id;
    if (typeof mediaId === 'string' && isUuid(mediaId)) ids.add(mediaId.toLowerCase());
  }
  return [...ids];
}
