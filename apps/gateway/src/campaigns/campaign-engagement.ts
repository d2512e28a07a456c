import { Injectable } from '@nestjs/common';
import { CAMPAIGNS_RPC, CampaignAudience, CampaignEngagement } from '@app/contracts';
import { RpcCallOptions, RpcClient } from '@app/messaging';
import { AuthenticatedAccount } from '../accounts/authenticated-account';
import type { AudienceContact } from '../contacts/contacts.repository';
import { LinksRepository } from '../links/links.repository';

const ENGAGEMENT: RpcCallOptions = {
  timeoutMs: 10_000,
  unavailable: "The audience's engagement cannot be read right now; retry later.",
};

/** Keeps the contacts of one audience page that match the engagement filter. */
export type EngagementPageFilter = (contacts: AudienceContact[]) => Promise<AudienceContact[]>;

/** The engagement filter of an audience, if it has one. */
const engagementOf = (audience: CampaignAudience): CampaignEngagement | null =>
  'filter' in audience ? (audience.filter.engagement ?? null) : null;

/**
 * `audience.filter.engagement` (docs/campaigns.md#engagement-filters): contacts by what they did
 * with another campaign of the account, page by page of the audience (never all at once). Received,
 * read and replied are the api's (its messages' statuses, the replies it recorded on its
 * recipients), clicks the gateway's (tracked links).
 */
@Injectable()
export class CampaignEngagementFilter {
  constructor(
    private readonly rpc: RpcClient,
    private readonly links: LinksRepository,
  ) {}

  /**
   * The page filter of the audience's engagement, null without one. The campaign it names must be
   * the account's: another account's (or an unknown one) is a 404 before any contact is read.
   */
  async prepare(account: AuthenticatedAccount, audience: CampaignAudience): Promise<EngagementPageFilter | null> {
    const e = engagementOf(audience);
    if (!e) return null;
    const campaignId = e.campaign_id.toLowerCase();
    const days = e.within_days ?? null;
    const asked = (did: 'received' | 'read' | 'replied', contacts: AudienceContact[]) =>
      this.rpc
        .call(
          CAMPAIGNS_RPC.engagement,
          {
            account_id: account.id,
            campaign_id: campaignId,
            did,
            within_days: days,
            contact_ids: contacts.map((c) => c.id),
          },
          ENGAGEMENT,
        )
        .then((r) => new Set(r.contact_ids));
    // The ownership check: the api answers 404 for a campaign that is not the account's.
    await asked('received', []);
    return async (contacts) => {
      if (!contacts.length) return contacts;
      let matched: Set<string>;
      if (e.did === 'clicked') {
        matched = new Set(
          await this.links.clickedContacts(
            account.id,
            campaignId,
            contacts.map((c) => c.id),
            days,
          ),
        );
      } else matched = await asked(e.did === 'read' || e.did === 'replied' ? e.did : 'received', contacts);
      const keep =
        e.did === 'not_received'
          ? (c: AudienceContact) => !matched.has(c.id)
          : (c: AudienceContact) => matched.has(c.id);
      return contacts.filter(keep);
    };
  }
}
