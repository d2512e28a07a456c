import { randomBytes } from 'node:crypto';
import { CampaignRecipientInput, TRACKABLE_URL } from '@app/contracts';
import type { TrackedLinkRow } from './links.repository';

/** Characters a URL in running text rarely ends with: left after the link, not in it. */
const TRAILING = /[.,;:!?)\]]+$/;

/** A new link token: 128 random bits in base64url (22 characters), naming nothing by itself. */
export const newLinkToken = (): string => randomBytes(16).toString('base64url');

/** A token's form: anything else is no link of ours. */
export const LINK_TOKEN = /^[A-Za-z0-9_-]{22}$/;

/**
 * A load page with every https URL in each sendable recipient's params replaced by a short link
 * `<base>/l/<token>`, and the links to store (docs/campaigns.md#tracked-links).
 */
export function trackPage(
  page: CampaignRecipientInput[],
  ids: { accountId: string; campaignId: string; base: string },
): { page: CampaignRecipientInput[]; links: TrackedLinkRow[] } {
  const links: TrackedLinkRow[] = [];
  const out = page.map((r) => {
    if (r.skip) return r;
    const params = r.params.map((text) =>
      text.replace(TRACKABLE_URL, (found) => {
        const tail = TRAILING.exec(found)?.[0] ?? '';
        const url = found.slice(0, found.length - tail.length);
        const token = newLinkToken();
        links.push({
          token,
          account_id: ids.accountId,
          campaign_id: ids.campaignId,
          seq: r.seq,
          contact_id: r.contact_id,
          variant: r.variant ?? null,
          url,
        });
        return `${ids.base}/l/${token}${tail}`;
      }),
    );
    return { ...r, params };
  });
  return { page: out, links };
}

/** A request path as the access log writes it: a link's token (it records a click) is left out. */
export function hideLinkToken(path: string): string {
  return /^\/l\/[^/?]+/.test(path) ? '/l/{token}' : path;
}
