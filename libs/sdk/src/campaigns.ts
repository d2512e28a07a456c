import type { Client } from 'openapi-fetch';
import type { components, operations, paths } from './generated/gateway';
import { CursorPage, paginate } from './pages';
import { unwrap, waitUntil, WaitOptions } from './shared';

export type Campaign = components['schemas']['CampaignDto'];
export type CampaignDefinition = components['schemas']['CampaignDefinitionDto'];
export type CampaignPatch = components['schemas']['CampaignPatchDto'];
export type CampaignEstimate = components['schemas']['CampaignEstimateDto'];
export type CampaignRecipient = components['schemas']['CampaignRecipientDto'];
export type CampaignQuery = Omit<NonNullable<operations['Campaigns_list']['parameters']['query']>, 'cursor'>;
type RecipientPage = components['schemas']['CampaignRecipientPageDto'];
export type RecipientQuery = Omit<NonNullable<operations['Campaigns_recipients']['parameters']['query']>, 'after'>;

export interface CampaignWaitOptions extends WaitOptions {
  /**
   * Keep waiting through a pause (default false: a paused campaign is returned, since it sends
   * nothing more until it is resumed; its `pause_reason` says why, e.g. `insufficient_balance`).
   */
  throughPauses?: boolean;
}

/** Whether a campaign sends nothing more: completed or cancelled. */
export const hasEnded = (campaign: Pick<Campaign, 'state'>): boolean =>
  campaign.state === 'completed' || campaign.state === 'cancelled';

/** The gateway's campaigns (docs/campaigns.md): the lifecycle, waiting for its end, the report. */
export function campaignsClient(http: Client<paths>) {
  const path = (id: string) => ({ params: { path: { id } } });
  const get = async (id: string): Promise<Campaign> => unwrap(await http.GET('/v1/campaigns/{id}', path(id)));
  return {
    /** `POST /v1/campaigns`: a draft. */
    async create(definition: CampaignDefinition): Promise<Campaign> {
      return unwrap(await http.POST('/v1/campaigns', { body: definition }));
    },
    /** `PATCH /v1/campaigns/{id}`: change a draft's fields. */
    async update(id: string, patch: CampaignPatch): Promise<Campaign> {
      return unwrap(await http.PATCH('/v1/campaigns/{id}', { ...path(id), body: patch }));
    },
    /** `GET /v1/campaigns/{id}`: state, counts, money, rate, estimated finish. */
    /** `GET /v1/campaigns/{id}`: state, counts, money, rate, estimated finish. */
    get,
    /** Every campaign of the account matching `query`, newest first, a page at a time. */
    list(query: CampaignQuery = {}): AsyncGenerator<Campaign> {
      return paginate(async (cursor): Promise<CursorPage<Campaign>> =>
        unwrap(await http.GET('/v1/campaigns', { params: { query: { ...query, cursor } } })),
      );
    },
    /** `POST /v1/campaigns/{id}/estimate`: a dry run (audience, exclusions, cost, time); nothing sent. */
    async estimate(id: string): Promise<CampaignEstimate> {
      return unwrap(await http.POST('/v1/campaigns/{id}/estimate', path(id)));
    },
    /** `POST /v1/campaigns/{id}/launch`: the draft becomes `scheduled` or `running`. */
    async launch(id: string): Promise<Campaign> {
      return unwrap(await http.POST('/v1/campaigns/{id}/launch', path(id)));
    },
    async pause(id: string): Promise<Campaign> {
      return unwrap(await http.POST('/v1/campaigns/{id}/pause', path(id)));
    },
    async resume(id: string): Promise<Campaign> {
      return unwrap(await http.POST('/v1/campaigns/{id}/resume', path(id)));
    },
    async cancel(id: string): Promise<Campaign> {
      return unwrap(await http.POST('/v1/campaigns/{id}/cancel', path(id)));
    },
    /**
     * Reads the campaign until it has ended (`completed` or `cancelled`), or is paused unless
     * `throughPauses`. A long audience needs a `timeoutMs` above the default 60 s.
     */
    waitForEnd(id: string, { throughPauses = false, ...wait }: CampaignWaitOptions = {}): Promise<Campaign> {
      return waitUntil(
        () => get(id),
        (c) => hasEnded(c) || (!throughPauses && c.state === 'paused'),
        `campaign ${id}`,
        wait,
      );
    },
    /** Every recipient of the campaign's report matching `query`, in audience order, a page at a time. */
    async *recipients(id: string, query: RecipientQuery = {}): AsyncGenerator<CampaignRecipient> {
      let after: string | undefined;
      for (;;) {
        // The operation also answers text/csv (with Accept: text/csv); this asks for JSON pages.
        const page = unwrap(
          await http.GET('/v1/campaigns/{id}/recipients', { params: { path: { id }, query: { ...query, after } } }),
        ) as RecipientPage;
        yield* page.data;
        if (page.next_after === null || page.data.length === 0) return;
        after = String(page.next_after);
      }
    },
  };
}

export type CampaignsClient = ReturnType<typeof campaignsClient>;
