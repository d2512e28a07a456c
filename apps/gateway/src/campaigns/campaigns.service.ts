import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  CAMPAIGNS_RPC,
  CampaignConsentRequest,
  CampaignDefinition,
  CampaignFrequencyRequest,
  CampaignFrequencyResult,
  campaignInstant,
  CampaignRecipientInput,
  CampaignRef,
  CampaignRecipientView,
  CampaignState,
  CampaignView,
  GatewaySendChannel,
  isUuid,
  ListCampaignRecipientsRequest,
  ListCampaignRecipientsResult,
  ListCampaignsResult,
  LaunchCampaignRequest,
  LoadCampaignRequest,
} from '@app/contracts';
import { TargetPolicy } from '@app/egress';
import { RpcCallOptions, RpcClient, RpcProblemError } from '@app/messaging';
import { Clock, ConflictProblem, NotFoundProblem, ServiceUnavailableProblem, WorkLimit } from '@app/server';
import { AuthenticatedAccount, billedUser } from '../accounts/authenticated-account';
import { ConnectionsRepository } from '../connections/connections.repository';
import { csvStream, spreadsheetSafe } from '../contacts/contacts-export';
import { liveSendersOf } from '../messages/send-route';
import { LinksService } from '../links/links.service';
import { CampaignMedia } from '../media/library/campaign-media';
import { CampaignAudienceResolver } from './campaign-audience';
import { CampaignAudienceCheck, emptyAudience } from './campaign-audience-check';
import { campaignAnswer, mergeDefinition, parseCampaignDefinition, storedDefinition } from './campaign-definition';
import { placeRecipients } from './campaign-content-estimate';
import { CampaignEstimate, estimateTime, EstimateTally, QuietHoursTally } from './campaign-estimate';

/** Most routes asked of consent per call (the api's bound). */
export const CONSENT_BATCH = 5_000;
/** Most recipients per load call. */
export const LOAD_PAGE_RECIPIENTS = 1_000;
/** Most JSON bytes of recipients per load call: a NATS message is at most 1 MiB. */
export const LOAD_PAGE_BYTES = 512 * 1024;
/** Recipients per page of the CSV report. */
const REPORT_PAGE = 1_000;
/**
 * Estimates and launches one gateway process resolves at once, how many more may wait and how long,
 * and how many one account may have running or waiting (docs/operations.md#heavy-work).
 */
const AUDIENCE_LIMIT = { what: 'audiences', atOnce: 2, waiting: 50, waitMs: 60_000, perKey: 1, retryAfterSeconds: 5 };

const READ: RpcCallOptions = { timeoutMs: 5_000, unavailable: 'Campaigns cannot be read right now; retry later.' };
const WRITE: RpcCallOptions = {
  timeoutMs: 5_000,
  unavailable: 'The campaign could not be changed right now; retry later.',
};
const ESTIMATE: RpcCallOptions = {
  timeoutMs: 10_000,
  unavailable: 'The campaign cannot be estimated right now; retry later.',
};
const LAUNCH: RpcCallOptions = {
  timeoutMs: 10_000,
  unavailable: 'The campaign could not be launched right now; it is still a draft: retry later.',
};
/** A launch whose last call went unanswered twice: it may have committed all the same. */
const LAUNCH_UNCONFIRMED =
  'The launch was not confirmed in time: the campaign may have launched. GET the campaign to see its state; ' +
  'launching it again with the same Idempotency-Key answers the campaign once it has launched.';

export const RECIPIENT_COLUMNS = [
  'seq',
  'contact_id',
  'external_id',
  'status',
  'skip_reason',
  'channel',
  'message_id',
  'failure_code',
  'queued_at',
  'updated_at',
  'next_attempt_at',
  'variant',
  'replied_at',
  'reply_kind',
  'reply_id',
  'reply_title',
  'reply_text',
] as const;

export interface RecipientsQuery {
  status?: CampaignRecipientView['status'];
  channel?: GatewaySendChannel;
  after?: number | null;
  limit: number;
}

/**
 * `/v1/campaigns` (docs/campaigns.md). The api keeps and runs each campaign; the gateway checks
 * definitions, and resolves the audience from the account's contacts for an estimate and a launch.
 */
@Injectable()
export class CampaignsService {
  /**
   * Estimates and launches under way in this process: each holds a page of contacts (sized in
   * bytes, with only the attributes its params use) and a batch of recipients, so only a few run at
   * once and the rest wait their turn (a launch of 100,000 takes seconds), then get 503.
   */
  private readonly audienceWork = new WorkLimit(AUDIENCE_LIMIT);

  constructor(
    private readonly rpc: RpcClient,
    private readonly audience: CampaignAudienceResolver,
    private readonly audienceCheck: CampaignAudienceCheck,
    private readonly connections: ConnectionsRepository,
    private readonly targets: TargetPolicy,
    private readonly clock: Clock,
    private readonly links: LinksService,
    private readonly media: CampaignMedia,
  ) {}

  /**
   * The linked WhatsApp app whose templates a campaign sends on WhatsApp; null without one, when
   * the api sends the account's bot templates on Telegram and MAX (docs/campaigns.md#bot-templates).
   */
  private async templateApp(account: AuthenticatedAccount): Promise<number | null> {
    return (await liveSendersOf(this.connections, account.id, ['whatsapp'])).whatsapp?.appId ?? null;
  }

  private parse(raw: unknown): CampaignDefinition {
    const definition = parseCampaignDefinition(raw, (url) => {
      const form = this.targets.checkForm(url);
      return form.ok ? null : form.reason;
    });
    return definition;
  }

  async create(account: AuthenticatedAccount, body: unknown): Promise<CampaignView> {
    const definition = this.parse(body);
    const userId = billedUser(account);
    await this.media.check(account, definition);
    const view = await this.rpc.call(
      CAMPAIGNS_RPC.create,
      { account_id: account.id, user_id: userId, definition },
      WRITE,
    );
    await this.media.remember(account, view);
    return campaignAnswer(view);
  }

  async get(account: AuthenticatedAccount, id: string): Promise<CampaignView> {
    return this.links.withClicks(account.id, campaignAnswer(await this.stored(account, id)));
  }

  /** The campaign as the api keeps it, its schedule as written: what an estimate, launch or change reads. */
  private stored(account: AuthenticatedAccount, id: string): Promise<CampaignView> {
    return this.rpc.call(CAMPAIGNS_RPC.get, refOf(account, id), READ);
  }

  async list(
    account: AuthenticatedAccount,
    q: { state?: CampaignState; cursor?: string; limit: number },
  ): Promise<ListCampaignsResult> {
    const page = await this.rpc.call(
      CAMPAIGNS_RPC.list,
      { account_id: account.id, ...(q.state ? { state: q.state } : {}), cursor: q.cursor ?? null, limit: q.limit },
      READ,
    );
    return { ...page, data: page.data.map(campaignAnswer) };
  }

  /** Merges the changes into the draft's stored definition and checks the result whole. */
  async update(account: AuthenticatedAccount, id: string, patch: unknown): Promise<CampaignView> {
    const stored = await this.stored(account, id);
    if (stored.state !== 'draft') throw notDraft(stored.state);
    const definition = this.parse(mergeDefinition(storedDefinition(stored), patch));
    await this.media.check(account, definition);
    const view = await this.rpc.call(CAMPAIGNS_RPC.update, { ...refOf(account, id), definition }, WRITE);
    await this.media.remember(account, view);
    return campaignAnswer(view);
  }

  async remove(account: AuthenticatedAccount, id: string): Promise<void> {
    await this.rpc.call(CAMPAIGNS_RPC.delete, refOf(account, id), WRITE);
  }

  async transition(
    account: AuthenticatedAccount,
    id: string,
    to: 'pause' | 'resume' | 'cancel',
  ): Promise<CampaignView> {
    return campaignAnswer(await this.rpc.call(CAMPAIGNS_RPC[to], refOf(account, id), WRITE));
  }

  /**
   * A dry run: the audience resolved as a launch would, consent asked for each route without
   * sending, the cost against the balance and budget, and how long it would take.
   */
  estimate(account: AuthenticatedAccount, id: string): Promise<CampaignEstimate> {
    return this.audienceWork.run(account.id, () => this.estimateNow(account, id));
  }

  private async estimateNow(account: AuthenticatedAccount, id: string): Promise<CampaignEstimate> {
    const campaign = await this.stored(account, id);
    const userId = billedUser(account);
    await this.media.check(account, campaign);
    const templateAppId = await this.templateApp(account);
    const quote = await this.rpc.call(
      CAMPAIGNS_RPC.quote,
      { ...refOf(account, id), template_app_id: templateAppId },
      ESTIMATE,
    );
    const now = this.clock.now();
    const startAt = campaignInstant(campaign.schedule?.start_at);
    const start = startAt && startAt > now ? startAt : now;
    const quiet = campaign.quiet_hours ? new QuietHoursTally(campaign.quiet_hours, start) : null;
    const tally = new EstimateTally(quote, campaign.budget ?? null, quiet);
    let batch: CampaignRecipientInput[] = [];
    const settle = async () => {
      if (!batch.length) return;
      const request: CampaignConsentRequest = {
        user_id: userId,
        category: quote.category,
        routes: batch.map((r) => r.route.map((s) => ({ channel: s.channel, to: s.to }))),
      };
      const { allowed } = await this.rpc.call(CAMPAIGNS_RPC.consent, request, ESTIMATE);
      // Each recipient's first channel consent allows, -1 when none.
      const first = batch.map((r, i) => {
        const index = allowed[i]?.index ?? -1;
        return index < r.route.length ? index : -1;
      });
      const consented = batch.filter((_r, i) => first[i] >= 0);
      // Of those consent allows, the ones the frequency rules keep out (marketing only).
      const { excluded } = await this.frequencyOf(quote.category, {
        user_id: userId,
        category: quote.category,
        template: campaign.template ?? '',
        frequency: campaign.frequency ?? null,
        contact_ids: consented.map((r) => r.contact_id),
      });
      // A content campaign's WhatsApp recipients count by their window (docs/campaigns.md#content-campaigns).
      const place = await placeRecipients(quote, batch, first, async (to) =>
        templateAppId === null
          ? to.map(() => false)
          : (
              await this.rpc.call(
                CAMPAIGNS_RPC.windows,
                { ...refOf(account, id), template_app_id: templateAppId, to },
                ESTIMATE,
              )
            ).open,
      );
      let k = 0;
      batch.forEach((_r, i) => {
        if (first[i] < 0) return tally.exclude('opted_out');
        const limited = excluded[k++];
        if (limited) tally.exclude(limited);
        else place(tally, i);
      });
      batch = [];
    };
    for await (const page of this.audience.resolve(account, campaign)) {
      for (const r of page) {
        if (r.skip) {
          tally.exclude(r.skip);
          continue;
        }
        batch.push(r);
        if (batch.length >= CONSENT_BATCH) await settle();
      }
    }
    await settle();
    tally.audienceWarnings.push(...(await this.audienceCheck.warnings(account.id, campaign.audience, tally.audience)));
    return tally.result((perChannel, quietHold) =>
      estimateTime({
        perChannel,
        pacing: quote.pacing,
        rate: campaign.rate ?? null,
        tier: quote.tier,
        runner: quote.runner,
        quiet: quietHold,
        now,
        startAt,
        endBy: campaignInstant(campaign.schedule?.end_by),
      }),
    );
  }

  /** The frequency rules' exclusions of some contacts: asked of the api for marketing only (they hold for nothing else). */
  private frequencyOf(category: string, request: CampaignFrequencyRequest): Promise<CampaignFrequencyResult> {
    if (category !== 'MARKETING') return Promise.resolve({ excluded: request.contact_ids.map(() => null) });
    return this.rpc.call(CAMPAIGNS_RPC.frequency, request, ESTIMATE);
  }

  /**
   * Loads the resolved audience into the draft a page at a time (the first page drops what an
   * interrupted launch loaded), the last page launching it with the count loaded. `key` is the
   * client's Idempotency-Key: the same launch again answers the campaign it launched.
   */
  launch(account: AuthenticatedAccount, id: string, key: string | null = null): Promise<CampaignView> {
    return this.audienceWork.run(account.id, () => this.launchNow(account, id, key));
  }

  private async launchNow(account: AuthenticatedAccount, id: string, key: string | null): Promise<CampaignView> {
    const campaign = await this.stored(account, id);
    if (campaign.state !== 'draft') {
      // Launched already: by this key, the api answers the campaign; by another launch, 409.
      if (key !== null) {
        const launch = { ...refOf(account, id), template_app_id: null, total: 0, launch_key: key };
        return campaignAnswer(await this.rpc.call(CAMPAIGNS_RPC.launch, launch, READ));
      }
      throw new ConflictProblem(
        'campaign-state',
        'Campaign state',
        `The campaign is ${campaign.state}: only a draft launches.`,
      );
    }
    billedUser(account);
    await this.media.check(account, campaign);
    const templateAppId = await this.templateApp(account);
    let total = 0;
    let sendable = 0;
    let first = true;
    let page: CampaignRecipientInput[] = [];
    let bytes = 0;
    // Tracked links (docs/campaigns.md#tracked-links): the page's URLs become short links first.
    const nextPage = async (): Promise<LoadCampaignRequest> => {
      const recipients = await this.links.track(account.id, campaign, page, first);
      const request = { ...refOf(account, id), reset: first, recipients };
      total += page.length;
      first = false;
      page = [];
      bytes = 0;
      return request;
    };
    for await (const resolved of this.audience.resolve(account, campaign)) {
      for (const r of resolved) {
        const size = Buffer.byteLength(JSON.stringify(r)) + 1;
        if (page.length && (page.length >= LOAD_PAGE_RECIPIENTS || bytes + size > LOAD_PAGE_BYTES)) {
          await this.rpc.call(CAMPAIGNS_RPC.load, await nextPage(), LAUNCH);
        }
        page.push(r);
        bytes += size;
        if (!r.skip) sendable++;
      }
    }
    if (sendable === 0) {
      // Nobody to send to: the draft stays a draft, with nothing loaded (an earlier launch's pages dropped too).
      const count = total + page.length;
      const warnings = count
        ? [{ code: 'no_recipients' as const, detail: `every one of the audience's ${count} contacts is excluded` }]
        : await this.audienceCheck.warnings(account.id, campaign.audience, 0);
      await this.rpc.call(CAMPAIGNS_RPC.load, { ...refOf(account, id), reset: true, recipients: [] }, LAUNCH);
      throw emptyAudience(warnings);
    }
    // The last page launches the campaign in the same call (one call for an audience of one page).
    const last = await nextPage();
    const launch = { template_app_id: templateAppId, total, launch_key: key ?? randomUUID() };
    return campaignAnswer(await this.loadAndLaunch(last, launch));
  }

  /**
   * The last page with the launch. An answer that does not come in time leaves the outcome open
   * (the api may have committed after the call gave up): the same request again, by its key,
   * answers the campaign it launched, waits for the one still under way, or launches it. When that
   * goes unanswered too, the answer is a 503 that says so, never that the campaign is a draft.
   */
  private async loadAndLaunch(
    page: LoadCampaignRequest,
    launch: Omit<LaunchCampaignRequest, keyof CampaignRef>,
  ): Promise<CampaignView> {
    for (let attempt = 1; ; attempt++) {
      try {
        const { campaign } = await this.rpc.call(CAMPAIGNS_RPC.load, { ...page, launch }, LAUNCH);
        if (campaign) return campaign;
        // An api from before launching with the last page loaded it only: the launch is its own call there.
        const ref = { account_id: page.account_id, id: page.id };
        return await this.rpc.call(CAMPAIGNS_RPC.launch, { ...ref, ...launch }, LAUNCH);
      } catch (err) {
        // Nobody subscribed at all: nothing was asked, so it is still a draft.
        if (!(err instanceof RpcProblemError) || err.problem.status !== 503 || err.noResponders) throw err;
        if (attempt >= 2) throw new ServiceUnavailableProblem(LAUNCH_UNCONFIRMED);
      }
    }
  }

  recipients(account: AuthenticatedAccount, id: string, q: RecipientsQuery): Promise<ListCampaignRecipientsResult> {
    return this.rpc.call(CAMPAIGNS_RPC.recipients, this.recipientsRequest(account, id, q), READ);
  }

  /**
   * Every matching recipient as CSV, a page of 1,000 at a time through the api (never all in
   * memory). The first page is read before the answer starts, so an unknown campaign is a 404.
   */
  async recipientsCsv(account: AuthenticatedAccount, id: string, q: Omit<RecipientsQuery, 'limit'>): Promise<Readable> {
    const request = this.recipientsRequest(account, id, { ...q, limit: REPORT_PAGE });
    const firstPage = await this.rpc.call(CAMPAIGNS_RPC.recipients, request, READ);
    const rpc = this.rpc;
    async function* lines(): AsyncGenerator<string[]> {
      let page = firstPage;
      for (;;) {
        for (const r of page.data) yield recipientLine(r);
        if (page.next_after === null || !page.data.length) return;
        page = await rpc.call(CAMPAIGNS_RPC.recipients, { ...request, after: page.next_after }, READ);
      }
    }
    return csvStream([...RECIPIENT_COLUMNS], lines());
  }

  private recipientsRequest(
    account: AuthenticatedAccount,
    id: string,
    q: RecipientsQuery,
  ): ListCampaignRecipientsRequest {
    return {
      ...refOf(account, id),
      ...(q.status ? { status: q.status } : {}),
      ...(q.channel ? { channel: q.channel } : {}),
      after: q.after ?? null,
      limit: q.limit,
    };
  }
}

/** The campaign as the api is asked for it; an id that is no UUID names no campaign. */
function refOf(account: AuthenticatedAccount, id: string): CampaignRef {
  if (!isUuid(id)) throw new NotFoundProblem('campaign');
  return { account_id: account.id, id: id.toLowerCase() };
}

const notDraft = (state: CampaignState) =>
  new ConflictProblem(
    'campaign-not-draft',
    'Campaign not a draft',
    `The campaign is ${state}: only a draft's definition changes.`,
  );

/** A recipient as a CSV line, in RECIPIENT_COLUMNS order. */
function recipientLine(r: CampaignRecipientView): string[] {
  return [
    String(r.seq),
    r.contact_id,
    spreadsheetSafe(r.external_id ?? ''),
    r.status,
    r.skip_reason ?? '',
    r.channel ?? '',
    r.message_id ?? '',
    r.failure_code ?? '',
    String(r.queued_at ?? ''),
    String(r.updated_at ?? ''),
    String(r.next_attempt_at ?? ''),
    spreadsheetSafe(r.variant ?? ''),
    String(r.replied_at ?? ''),
    r.reply?.kind ?? '',
    spreadsheetSafe(r.reply?.id ?? ''),
    spreadsheetSafe(r.reply?.title ?? ''),
    spreadsheetSafe(r.reply?.text ?? ''),
  ];
}
