import { Controller, INestMicroservice, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { v7 as uuidv7 } from 'uuid';
import {
  CAMPAIGNS_RPC,
  CampaignConsentRequest,
  CampaignConsentResult,
  CampaignFrequencyRequest,
  CampaignFrequencyResult,
  CampaignQuote,
  CampaignQuoteRequest,
  CampaignRecipientInput,
  CampaignRef,
  CampaignView,
  CreateCampaignRequest,
  FrequencySkip,
  GATEWAY_TEMPLATES_RPC,
  GetGatewayTemplateRequest,
  GetGatewayTemplateResult,
  LaunchCampaignRequest,
  ListCampaignRecipientsRequest,
  ListCampaignRecipientsResult,
  ListCampaignsRequest,
  ListCampaignsResult,
  LoadCampaignRequest,
  LoadCampaignResult,
  RpcReply,
  UpdateCampaignRequest,
  unixSeconds,
} from '@app/contracts';
import { PrefixedServerNats, rpcAnswer } from '@app/messaging';
import { ConflictProblem, ForbiddenProblem, NotFoundProblem, ProblemError, rpcProblemOf } from '@app/server';

/**
 * What the api keeps of campaigns, answered over the same request/reply subjects and shapes
 * (libs/contracts/src/campaigns.ts) so that the gateway's resource is tested on its own: each
 * campaign in memory, the pages the gateway loaded as they came, and the consent answers and
 * quote a test sets.
 */
type StoredCampaign = CampaignView & { account_id: string; user_id: string };

export class CampaignsApiState {
  readonly campaigns = new Map<string, StoredCampaign>();
  /** The key each campaign was launched with. */
  readonly launchKeys = new Map<string, string>();
  /** How many launches to commit without answering (their answer lost on the way). */
  loseLaunchAnswers = 0;
  readonly loaded = new Map<string, CampaignRecipientInput[]>();
  /** Each load page: its recipients and its size in bytes. */
  readonly pages: { id: string; reset: boolean; count: number; bytes: number }[] = [];
  /** The largest consent request, in routes. */
  largestConsent = 0;
  /** Addresses that consent refuses. */
  readonly optedOut = new Set<string>();
  /** Addresses that consent refuses for want of an opt-in. */
  readonly consentRequired = new Set<string>();
  /** Contacts the frequency rules keep out, and why; the frequency requests as asked. */
  readonly frequencyLimited = new Map<string, FrequencySkip>();
  readonly frequencyAsked: CampaignFrequencyRequest[] = [];
  /** The quote requests as asked (the WhatsApp app named, or null without one). */
  readonly quoteAsked: CampaignQuoteRequest[] = [];
  quote: CampaignQuote = {
    category: 'MARKETING',
    currency: 'USD',
    prices: { whatsapp: 0.0125, telegram: 0.01, max: 0.005 },
    balance: 100,
    tier: { cap: 1000, label: '1K', remaining: 1000 },
    pacing: { whatsapp: 80, telegram: 30, max: 30 },
    runner: { tick_ms: 200, batch_max: 500, pass_cost: null },
  };

  owned(ref: CampaignRef) {
    const campaign = this.campaigns.get(ref.id);
    if (!campaign) throw new NotFoundProblem('campaign');
    if (campaign.account_id !== ref.account_id) throw new ForbiddenProblem('The campaign belongs to another account.');
    return campaign;
  }
}

const stateProblem = (state: string) =>
  new ProblemError(409, 'campaign-state', 'Campaign state', `The campaign is ${state}.`);

const view = (c: CampaignView & { account_id: string; user_id: string }): CampaignView => {
  const { account_id: _a, user_id: _u, ...rest } = c;
  return rest;
};

@Controller()
class CampaignsApiController {
  constructor(private readonly s: CampaignsApiState) {}

  @MessagePattern(CAMPAIGNS_RPC.create)
  create(@Payload() req: CreateCampaignRequest): Promise<RpcReply<CampaignView>> {
    return rpcAnswer(() => {
      const now = unixSeconds();
      const id = uuidv7();
      const campaign = {
        ...req.definition,
        id,
        account_id: req.account_id,
        user_id: req.user_id,
        state: 'draft' as const,
        pause_reason: null,
        pause_detail: null,
        recipients: 0,
        counts: { pending: 0, skipped: 0, queued: 0, sent: 0, delivered: 0, read: 0, failed: 0 },
        channels_used: {},
        money: { currency: null, held: 0, spent: 0, committed: 0 },
        current_rate: 0,
        estimated_finish_at: null,
        created_at: now,
        updated_at: now,
        launched_at: null,
        started_at: null,
        completed_at: null,
        replied: 0,
        replies_by_button: [],
      };
      this.s.campaigns.set(id, campaign);
      return view(campaign);
    }, rpcProblemOf);
  }

  /** The account's bot templates of a name (a campaign's media check reads them): this stand-in has none. */
  @MessagePattern(GATEWAY_TEMPLATES_RPC.get)
  botTemplates(@Payload() req: GetGatewayTemplateRequest): Promise<RpcReply<GetGatewayTemplateResult>> {
    return rpcAnswer((): GetGatewayTemplateResult => {
      throw new NotFoundProblem(`template ${req.name}`);
    }, rpcProblemOf);
  }

  @MessagePattern(CAMPAIGNS_RPC.get)
  get(@Payload() req: CampaignRef): Promise<RpcReply<CampaignView>> {
    return rpcAnswer(() => view(this.s.owned(req)), rpcProblemOf);
  }

  @MessagePattern(CAMPAIGNS_RPC.list)
  list(@Payload() req: ListCampaignsRequest): Promise<RpcReply<ListCampaignsResult>> {
    return rpcAnswer(() => {
      const mine = [...this.s.campaigns.values()]
        .filter((c) => c.account_id === req.account_id && (!req.state || c.state === req.state))
        .filter((c) => !req.cursor || c.id < req.cursor)
        .sort((a, b) => (a.id < b.id ? 1 : -1));
      const data = mine.slice(0, req.limit).map(view);
      return { data, next_cursor: mine.length > req.limit ? data[data.length - 1].id : null };
    }, rpcProblemOf);
  }

  @MessagePattern(CAMPAIGNS_RPC.update)
  update(@Payload() req: UpdateCampaignRequest): Promise<RpcReply<CampaignView>> {
    return rpcAnswer(() => {
      const c = this.s.owned(req);
      if (c.state !== 'draft') throw new ConflictProblem('campaign-not-draft', 'Campaign not a draft');
      const { language, media_url, schedule, quiet_hours, rate, budget, ...required } = req.definition;
      const updated = {
        ...c,
        language: language ?? null,
        media_url: media_url ?? null,
        schedule: schedule ?? null,
        quiet_hours: quiet_hours ?? null,
        rate: rate ?? null,
        budget: budget ?? null,
        ...required,
        updated_at: unixSeconds(),
      };
      this.s.campaigns.set(c.id, updated);
      return view(updated);
    }, rpcProblemOf);
  }

  @MessagePattern(CAMPAIGNS_RPC.delete)
  remove(@Payload() req: CampaignRef): Promise<RpcReply<null>> {
    return rpcAnswer(() => {
      const c = this.s.owned(req);
      if (c.state !== 'draft') throw new ConflictProblem('campaign-not-draft', 'Campaign not a draft');
      this.s.campaigns.delete(c.id);
      return null;
    }, rpcProblemOf);
  }

  @MessagePattern(CAMPAIGNS_RPC.quote)
  quote(@Payload() req: CampaignQuoteRequest): Promise<RpcReply<CampaignQuote>> {
    return rpcAnswer(() => {
      this.s.owned(req);
      this.s.quoteAsked.push(req);
      return this.s.quote;
    }, rpcProblemOf);
  }

  @MessagePattern(CAMPAIGNS_RPC.consent)
  consent(@Payload() req: CampaignConsentRequest): Promise<RpcReply<CampaignConsentResult>> {
    return rpcAnswer(() => {
      this.s.largestConsent = Math.max(this.s.largestConsent, req.routes.length);
      return {
        allowed: req.routes.map((route) => {
          const index = route.findIndex((s) => !this.s.optedOut.has(s.to) && !this.s.consentRequired.has(s.to));
          if (index >= 0) return { index };
          return { index: -1, reason: this.s.optedOut.has(route[0]?.to) ? 'opted_out' : 'consent_required' };
        }),
      };
    }, rpcProblemOf);
  }

  @MessagePattern(CAMPAIGNS_RPC.frequency)
  frequency(@Payload() req: CampaignFrequencyRequest): Promise<RpcReply<CampaignFrequencyResult>> {
    return rpcAnswer(() => {
      this.s.frequencyAsked.push(req);
      return { excluded: req.contact_ids.map((id) => this.s.frequencyLimited.get(id) ?? null) };
    }, rpcProblemOf);
  }

  @MessagePattern(CAMPAIGNS_RPC.load)
  async load(@Payload() req: LoadCampaignRequest): Promise<RpcReply<LoadCampaignResult> | never> {
    const answer = await rpcAnswer((): LoadCampaignResult => {
      const c = this.s.owned(req);
      if (c.state !== 'draft') {
        if (req.launch) return { loaded: 0, campaign: this.relaunched(c, req.launch.launch_key) };
        throw stateProblem(c.state);
      }
      if (req.reset) this.s.loaded.set(c.id, []);
      const list = this.s.loaded.get(c.id) ?? [];
      list.push(...req.recipients);
      this.s.loaded.set(c.id, list);
      this.s.pages.push({
        id: c.id,
        reset: req.reset,
        count: req.recipients.length,
        bytes: Buffer.byteLength(JSON.stringify(req)),
      });
      if (!req.launch) return { loaded: req.recipients.length };
      return { loaded: req.recipients.length, campaign: this.launched(c, req.launch) };
    }, rpcProblemOf);
    // A launch whose answer is lost after it committed: the caller hears nothing and times out.
    if (req.launch && answer.result?.campaign && this.s.loseLaunchAnswers > 0) {
      this.s.loseLaunchAnswers--;
      return new Promise<never>(() => undefined);
    }
    return answer;
  }

  @MessagePattern(CAMPAIGNS_RPC.launch)
  launch(@Payload() req: LaunchCampaignRequest): Promise<RpcReply<CampaignView>> {
    return rpcAnswer(() => {
      const c = this.s.owned(req);
      if (c.state !== 'draft') return this.relaunched(c, req.launch_key);
      return this.launched(c, req);
    }, rpcProblemOf);
  }

  /** A campaign no longer a draft asked to launch: itself when this key launched it, else 409. */
  private relaunched(c: StoredCampaign, key: string | null | undefined): CampaignView {
    if (!key || this.s.launchKeys.get(c.id) !== key) throw stateProblem(c.state);
    return view(c);
  }

  private launched(c: StoredCampaign, req: Omit<LaunchCampaignRequest, 'account_id' | 'id'>): CampaignView {
    const loaded = this.s.loaded.get(c.id) ?? [];
    if (loaded.length !== req.total) throw new ConflictProblem('campaign-incomplete', 'Campaign incomplete');
    const skipped = loaded.filter((r) => r.skip).length;
    const now = unixSeconds();
    const launched = {
      ...c,
      state: 'running' as const,
      recipients: loaded.length,
      counts: { ...c.counts, pending: loaded.length - skipped, skipped },
      launched_at: now,
      started_at: now,
    };
    this.s.campaigns.set(c.id, launched);
    if (req.launch_key) this.s.launchKeys.set(c.id, req.launch_key);
    return view(launched);
  }

  @MessagePattern(CAMPAIGNS_RPC.pause)
  pause(@Payload() req: CampaignRef): Promise<RpcReply<CampaignView>> {
    return this.move(req, ['scheduled', 'running'], 'paused');
  }

  @MessagePattern(CAMPAIGNS_RPC.resume)
  resume(@Payload() req: CampaignRef): Promise<RpcReply<CampaignView>> {
    return this.move(req, ['paused'], 'running');
  }

  @MessagePattern(CAMPAIGNS_RPC.cancel)
  cancel(@Payload() req: CampaignRef): Promise<RpcReply<CampaignView>> {
    return this.move(req, ['draft', 'scheduled', 'running', 'paused'], 'cancelled');
  }

  private move(req: CampaignRef, from: string[], to: CampaignView['state']): Promise<RpcReply<CampaignView>> {
    return rpcAnswer(() => {
      const c = this.s.owned(req);
      if (!from.includes(c.state)) throw stateProblem(c.state);
      const moved = {
        ...c,
        state: to,
        pause_reason: to === 'paused' ? ('requested' as const) : null,
      };
      this.s.campaigns.set(c.id, moved);
      return view(moved);
    }, rpcProblemOf);
  }

  @MessagePattern(CAMPAIGNS_RPC.recipients)
  recipients(@Payload() req: ListCampaignRecipientsRequest): Promise<RpcReply<ListCampaignRecipientsResult>> {
    return rpcAnswer(() => {
      this.s.owned(req);
      const rows = (this.s.loaded.get(req.id) ?? [])
        .map((r) => ({
          seq: r.seq,
          contact_id: r.contact_id,
          external_id: r.external_id,
          status: r.skip ? ('skipped' as const) : ('pending' as const),
          skip_reason: r.skip ?? null,
          channel: null,
          message_id: null,
          failure_code: null,
          queued_at: null,
          updated_at: null,
          next_attempt_at: null,
          variant: r.variant === undefined || r.variant === null ? null : `variant ${r.variant}`,
          replied_at: null,
          reply: null,
        }))
        .filter((r) => r.seq > (req.after ?? 0) && (!req.status || r.status === req.status) && !req.channel);
      const data = rows.slice(0, req.limit);
      return { data, next_after: rows.length > req.limit ? data[data.length - 1].seq : null };
    }, rpcProblemOf);
  }
}

/** Starts the stand-in for the api's campaign subjects on the suite's NATS prefix. */
export async function startCampaignsApi(env: Record<string, string>): Promise<{
  state: CampaignsApiState;
  close(): Promise<void>;
}> {
  const state = new CampaignsApiState();
  @Module({ controllers: [CampaignsApiController], providers: [{ provide: CampaignsApiState, useValue: state }] })
  class CampaignsApiModule {}
  const app: INestMicroservice = await NestFactory.createMicroservice(CampaignsApiModule, {
    strategy: new PrefixedServerNats(
      { servers: env.NATS_URL.split(','), queue: 'api', name: 'campaigns-api-stand-in' },
      env.NATS_PREFIX,
    ),
    logger: false,
  });
  await app.listen();
  return { state, close: () => app.close() };
}
