import { Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  CampaignEventData,
  campaignInstant,
  CampaignPauseReason,
  CampaignQuote,
  CampaignCounts,
  CampaignQuoteRequest,
  CampaignRecipientView,
  CampaignRef,
  CampaignState,
  CampaignView,
  CAMPAIGN_RECIPIENT_STATUSES,
  CAMPAIGN_STATES,
  CreateCampaignRequest,
  EventEnvelope,
  EventType,
  GATEWAY_SEND_CHANNELS,
  GatewaySendChannel,
  LaunchCampaignRequest,
  ListCampaignRecipientsRequest,
  ListCampaignRecipientsResult,
  ListCampaignsRequest,
  ListCampaignsResult,
  LoadCampaignRequest,
  LoadCampaignResult,
  newEventId,
  newMessageId,
  TIER_CAP_OF,
  Topology,
  UpdateCampaignRequest,
  unixSeconds,
} from '@app/contracts';
import { Clock, FieldError, ForbiddenProblem, NotFoundProblem, ProblemError, ValidationProblem } from '@app/server';
import { BalancesRepository } from '../billing/balances.repository';
import { MessagePrices } from '../billing/message-prices';
import { ApiConfig } from '../config';
import { Outbox, OutboxEntry, OutboxRepository } from '../outbox';
import { MessagesService, TierWindowRepository } from '../sending';
import { TemplateSources } from '../sending/template-source';
import { CampaignSendable, campaignSendable, categoryOn } from './campaign-template';
import { checkDefinition, tierLabel } from './campaign-rules';
import { isChannel } from './campaign-recipient-input';
import { checkLoadPage, checkPageFits, launchDraft, launchedBy, launchErrors } from './campaign-launch';
import { CampaignRow, CampaignsRepository, CampaignTotals } from './campaigns.repository';
import { withVariant } from './campaign-variants';
import { CampaignVariantsRepository } from './campaign-variants.repository';
import { CampaignRepliesRepository } from './campaign-replies.repository';
import { CampaignPassCostMeter, remainingSeconds } from './campaign-pass-cost';
import { CampaignTotalsCache } from './campaign-totals-cache';

/** Recipients whose message the send path accepted: every one neither pending nor skipped. */
const acceptedOf = (n: CampaignCounts): number => n.queued + n.sent + n.delivered + n.read + n.failed;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type CampaignEventType = Extract<EventType, `campaign.${string}`>;

/** A state change written with its event: the row, the event, and the counts both the event and the answer give. */
export interface CampaignChange {
  row: CampaignRow;
  entry: OutboxEntry;
  totals: CampaignTotals;
}

const stateProblem = (state: CampaignState, action: string) =>
  new ProblemError(409, 'campaign-state', 'Campaign state', `The campaign is ${state}: it cannot be ${action}.`, {
    state,
  });

const seconds = (d: Date | null) => (d ? unixSeconds(new Date(d)) : null);

/**
 * Campaigns of the gateway's accounts (docs/campaigns.md): drafts, the estimate's quote (its
 * consent dry run is the consent service's), the recipients the gateway resolves before launch, the state changes with
 * their events, and the report. The runner (CampaignRunner) sends them.
 */
@Injectable()
export class CampaignsService {
  private readonly logger = new Logger(CampaignsService.name);

  constructor(
    private readonly repo: CampaignsRepository,
    private readonly sources: TemplateSources,
    private readonly sends: MessagesService,
    private readonly prices: MessagePrices,
    private readonly balances: BalancesRepository,
    private readonly tiers: TierWindowRepository,
    private readonly outbox: Outbox,
    private readonly outboxRows: OutboxRepository,
    private readonly topology: Topology,
    private readonly clock: Clock,
    private readonly config: ApiConfig,
    private readonly variants: CampaignVariantsRepository,
    private readonly replies: CampaignRepliesRepository,
    private readonly passCost: CampaignPassCostMeter,
    private readonly totalsCache: CampaignTotalsCache,
  ) {}

  async create(req: CreateCampaignRequest): Promise<CampaignView> {
    const accountId = this.accountOf(req);
    if (typeof req.user_id !== 'string' || !UUID.test(req.user_id)) {
      throw new ValidationProblem([{ field: 'user_id', message: 'must be a user id' }]);
    }
    const definition = definitionOf(req.definition);
    const row = await this.repo.insert({ id: newMessageId(), userId: req.user_id, accountId, definition });
    return this.viewOf(row);
  }

  async get(req: CampaignRef): Promise<CampaignView> {
    return this.viewOf(await this.owned(req));
  }

  async list(req: ListCampaignsRequest): Promise<ListCampaignsResult> {
    const accountId = this.accountOf(req);
    const errors: FieldError[] = [];
    const limit = req.limit ?? 50;
    if (!Number.isInteger(limit) || limit < 1 || limit > 100)
      errors.push({ field: 'limit', message: 'must be 1 to 100' });
    if (req.state !== undefined && req.state !== null && !(CAMPAIGN_STATES as readonly string[]).includes(req.state)) {
      errors.push({ field: 'state', message: `must be one of ${CAMPAIGN_STATES.join(', ')}` });
    }
    const cursor = req.cursor ?? null;
    if (cursor !== null && !(typeof cursor === 'string' && UUID.test(cursor))) {
      errors.push({ field: 'cursor', message: 'must be a cursor this list gave' });
    }
    if (errors.length) throw new ValidationProblem(errors);
    const rows = await this.repo.list(accountId, req.state ?? null, cursor, limit + 1);
    const page = rows.slice(0, limit);
    return {
      data: await Promise.all(page.map((r) => this.viewOf(r))),
      next_cursor: rows.length > limit ? page[page.length - 1].id : null,
    };
  }

  async update(req: UpdateCampaignRequest): Promise<CampaignView> {
    const definition = definitionOf(req.definition);
    const row = await this.repo.transaction(async (em) => {
      const c = await this.owned(req, em);
      if (c.state !== 'draft') throw notDraft(c.state);
      return this.repo.updateDefinition(em, c.id, definition);
    });
    return this.viewOf(row);
  }

  async delete(req: CampaignRef): Promise<null> {
    await this.repo.transaction(async (em) => {
      const c = await this.owned(req, em);
      if (c.state !== 'draft') throw notDraft(c.state);
      await this.repo.delete(em, c.id);
    });
    return null;
  }

  /** What an estimate needs: the template's category, the prices, the balance, the tier and the pacing. */
  async quote(req: CampaignQuoteRequest): Promise<CampaignQuote> {
    const c = await this.owned(req);
    const sendable = await this.sendable(c, req.template_app_id);
    const { app, category } = sendable;
    // Each channel at the price of what it sends: the bot template's category on Telegram and MAX.
    const prices = Object.fromEntries(
      GATEWAY_SEND_CHANNELS.map((ch) => [ch, this.prices.priceOf(categoryOn(sendable, ch), ch)]),
    ) as Record<GatewaySendChannel, number>;
    const balance = await this.balances.findBalance(c.user_id);
    const cap = app ? (app.messageCap ?? TIER_CAP_OF[app.messageLimit]) : null;
    const tier =
      cap === null || !app
        ? null
        : { cap, label: tierLabel(cap), remaining: Math.max(0, cap - (await this.tiers.liveRecipients(app.id))) };
    return {
      category,
      currency: balance?.currency ?? 'USD',
      prices,
      balance: balance ? Number(balance.available) : 0,
      tier,
      pacing: this.config.campaignPacing,
      ...(sendable.content ? { content: this.contentQuote(sendable) } : {}),
      runner: CampaignPassCostMeter.figures(this.config, this.passCost),
    };
  }

  /** A content campaign's quote: whether it sends on WhatsApp, and its fallback template's price there. */
  private contentQuote(s: CampaignSendable): NonNullable<CampaignQuote['content']> {
    const fallback = s.fallback ? this.prices.priceOf(categoryOn(s.fallback, 'whatsapp'), 'whatsapp') : null;
    return { whatsapp: s.app !== null, fallback_price: fallback };
  }

  /**
   * One page of a draft's recipients; `reset` drops those of an earlier, interrupted load first.
   * With `launch` (the last page), the campaign launches in the same transaction: one call and one
   * commit for an audience of one page.
   */
  async load(req: LoadCampaignRequest): Promise<LoadCampaignResult> {
    checkLoadPage(req);
    const page = req.recipients;
    const launch = req.launch ?? null;
    let appId: number | null = null;
    if (launch) {
      const draft = await this.owned(req);
      if (draft.state !== 'draft') return { loaded: 0, campaign: await this.relaunched(draft, launch.launch_key) };
      appId = await this.launchApp(draft, launch.template_app_id);
    }
    const done = await this.repo.transaction(async (em) => {
      const c = await this.owned(req, em, true);
      if (c.state !== 'draft') {
        if (!launch) throw notDraft(c.state);
        // The same launch again (its first answer was lost): the campaign it launched.
        if (launchedBy(c, launch.launch_key)) return { loaded: 0, change: { row: c } };
        throw stateProblem(c.state, 'launched');
      }
      checkPageFits(page, c);
      if (req.reset) await this.repo.deleteRecipients(em, c.id);
      const loaded = await this.repo.insertRecipients(em, c.id, page);
      return { loaded, change: launch ? await this.launchIn(em, c, appId, launch) : null };
    });
    if (!done.change) return { loaded: done.loaded };
    return { loaded: done.loaded, campaign: await this.answer(done.change) };
  }

  /**
   * Draft to scheduled (a start in the future) or running, once every recipient is loaded and the
   * template sends. The same launch again (its `launch_key`) answers the campaign it launched.
   */
  async launch(req: LaunchCampaignRequest): Promise<CampaignView> {
    const errors = launchErrors(req, '');
    if (errors.length) throw new ValidationProblem(errors);
    const draft = await this.owned(req);
    if (draft.state !== 'draft') return this.relaunched(draft, req.launch_key);
    const appId = await this.launchApp(draft, req.template_app_id);
    const launched = await this.repo.transaction(async (em): Promise<CampaignChange | { row: CampaignRow }> => {
      const c = (await this.repo.find(draft.id, em, true))!;
      if (c.state !== 'draft') {
        if (launchedBy(c, req.launch_key)) return { row: c };
        throw stateProblem(c.state, 'launched');
      }
      return this.launchIn(em, c, appId, req);
    });
    return this.answer(launched);
  }

  /** A campaign no longer a draft asked to launch: itself when this key launched it, else 409. */
  private async relaunched(c: CampaignRow, key: string | null | undefined): Promise<CampaignView> {
    if (!launchedBy(c, key)) throw stateProblem(c.state, 'launched');
    return this.viewOf(c);
  }

  /** The WhatsApp app a launch sends from, once its template sends (and every variant's, docs/campaigns.md#variants). */
  private async launchApp(draft: CampaignRow, templateAppId: number | null): Promise<number | null> {
    const { app } = await this.sendable(draft, templateAppId);
    for (const i of (draft.definition.variants ?? []).keys()) await this.sendable(withVariant(draft, i), templateAppId);
    return app?.id ?? null;
  }

  /** The launch of the locked draft `c` in the caller's transaction: every recipient loaded, then its new state. */
  private async launchIn(
    em: EntityManager,
    c: CampaignRow,
    appId: number | null,
    req: { total: number; launch_key?: string | null },
  ): Promise<CampaignChange | { row: CampaignRow }> {
    const { row, started } = await launchDraft(this.repo, this.clock, em, c, appId, req);
    return started ? this.record(em, row, 'campaign.started') : { row };
  }

  async pause(req: CampaignRef): Promise<CampaignView> {
    const c = await this.owned(req);
    if (c.state !== 'scheduled' && c.state !== 'running') throw stateProblem(c.state, 'paused');
    const paused = await this.pauseCampaign(c.id, 'requested', 'Paused on request.');
    if (!paused) throw stateProblem((await this.repo.find(c.id))!.state, 'paused');
    return this.viewOf(paused.row, paused.totals);
  }

  async resume(req: CampaignRef): Promise<CampaignView> {
    const resumed = await this.repo.transaction(async (em) => {
      const c = await this.owned(req, em, true);
      if (c.state !== 'paused') throw stateProblem(c.state, 'resumed');
      const start = campaignInstant(c.definition.schedule?.start_at);
      const later = c.started_at === null && start !== null && start.getTime() > this.clock.nowMs();
      const row = await this.repo.setState(em, c.id, later ? 'scheduled' : 'running', {
        pause_reason: null,
        pause_detail: null,
        now: ['last_tick_at'],
      });
      return this.record(em, row, 'campaign.resumed');
    });
    return this.answer(resumed);
  }

  async cancel(req: CampaignRef): Promise<CampaignView> {
    const cancelled = await this.repo.transaction(async (em) => {
      const c = await this.owned(req, em, true);
      if (c.state === 'completed' || c.state === 'cancelled') throw stateProblem(c.state, 'cancelled');
      await this.repo.skipPending(em, c.id, 'cancelled');
      const row = await this.repo.setState(em, c.id, 'cancelled', { now: ['completed_at'] });
      return this.record(em, row, 'campaign.cancelled');
    });
    return this.answer(cancelled);
  }

  /** A change's answer: the campaign with the counts its event gave (read after the change, in its transaction). */
  private answer(change: CampaignChange | { row: CampaignRow }): Promise<CampaignView> {
    if (!('entry' in change)) return this.viewOf(change.row);
    this.publish(change.entry);
    return this.viewOf(change.row, change.totals);
  }

  async recipients(req: ListCampaignRecipientsRequest): Promise<ListCampaignRecipientsResult> {
    const errors: FieldError[] = [];
    const limit = req.limit ?? 100;
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
      errors.push({ field: 'limit', message: 'must be 1 to 1000' });
    const after = req.after ?? 0;
    if (!Number.isInteger(after) || after < 0)
      errors.push({ field: 'after', message: 'must be a seq this report gave' });
    if (
      req.status !== undefined &&
      req.status !== null &&
      !(CAMPAIGN_RECIPIENT_STATUSES as readonly string[]).includes(req.status)
    ) {
      errors.push({ field: 'status', message: `must be one of ${CAMPAIGN_RECIPIENT_STATUSES.join(', ')}` });
    }
    if (req.channel !== undefined && req.channel !== null && !isChannel(req.channel)) {
      errors.push({ field: 'channel', message: `must be one of ${GATEWAY_SEND_CHANNELS.join(', ')}` });
    }
    if (errors.length) throw new ValidationProblem(errors);
    const c = await this.owned(req);
    const rows = await this.repo.recipients(
      c.id,
      { status: req.status ?? null, channel: req.channel ?? null },
      after,
      limit + 1,
    );
    const page = rows.slice(0, limit);
    return {
      data: page.map((r): CampaignRecipientView => ({
        seq: r.seq,
        contact_id: r.contact_id,
        external_id: r.external_id,
        status: r.status,
        skip_reason: r.skip_reason,
        channel: r.channel,
        message_id: r.message_id,
        failure_code: r.status === 'failed' ? r.failure_code : null,
        queued_at: seconds(r.queued_at),
        updated_at: seconds(r.updated_at),
        next_attempt_at: r.state === 'pending' ? seconds(r.next_at) : null,
        variant: r.variant === null ? null : (c.definition.variants?.[r.variant]?.name ?? null),
        replied_at: seconds(r.replied_at),
        reply: r.reply,
      })),
      next_after: rows.length > limit ? page[page.length - 1].seq : null,
    };
  }

  /**
   * Pauses a scheduled or running campaign for `reason`, with its `campaign.paused` event in the
   * same transaction; null when it was neither (nothing changed).
   */
  async pauseCampaign(id: string, reason: CampaignPauseReason, detail: string): Promise<CampaignChange | null> {
    const done = await this.repo.transaction((em) => this.pauseIn(em, id, reason, detail));
    if (done) this.publish(done.entry);
    return done;
  }

  /** `pauseCampaign` in the caller's transaction: publish the entry after it commits. */
  async pauseIn(
    em: EntityManager,
    id: string,
    reason: CampaignPauseReason,
    detail: string,
  ): Promise<CampaignChange | null> {
    const c = await this.repo.find(id, em, true);
    if (!c || (c.state !== 'scheduled' && c.state !== 'running')) return null;
    const row = await this.repo.setState(em, id, 'paused', {
      pause_reason: reason,
      pause_detail: detail.slice(0, 500),
    });
    return this.record(em, row, 'campaign.paused');
  }

  /** The campaign's templates per channel as a send would resolve them now (the problems a send would answer). */
  sendable(c: CampaignRow, templateAppId: number | null): Promise<CampaignSendable> {
    return campaignSendable(this.sources, this.sends, c, templateAppId);
  }

  /**
   * Writes a campaign event to the outbox in the caller's transaction, after its change: its counts
   * are read there by the same read `GET` makes, and are given back for the change's answer.
   * Publish the entry after the commit.
   */
  async record(em: EntityManager, c: CampaignRow, type: CampaignEventType): Promise<CampaignChange> {
    const totals = await this.repo.totals(c.id, em);
    this.totalsCache.forget(c.id);
    const event: EventEnvelope<CampaignEventData> = {
      id: newEventId(),
      type,
      created_at: this.clock.nowSeconds(),
      channel: null,
      app_id: null,
      user_id: c.user_id,
      data: {
        campaign_id: c.id,
        account_id: c.account_id,
        name: c.name,
        state: c.state,
        reason: c.pause_reason,
        detail: c.pause_detail,
        counts: totals.counts,
      },
    };
    const entry = { id: event.id, subject: this.topology.eventSubject(type), payload: event };
    await this.outboxRows.insert(em, [entry]);
    return { row: c, entry, totals };
  }

  /** Publishes a committed event now; the outbox relay publishes it later if this fails. */
  publish(entry: OutboxEntry | null): void {
    if (!entry) return;
    this.outbox
      .publish(entry)
      .catch((err: unknown) => this.logger.warn({ err, id: entry.id }, 'campaign event left to the outbox relay'));
  }

  async viewOf(c: CampaignRow, totals?: CampaignTotals): Promise<CampaignView> {
    // Independent reads asked together: one wait for the pool's connections, not one each (while
    // the runner sends, each wait is behind its queries).
    const [t, balance, variantResults] = await Promise.all([
      totals ?? this.totalsCache.get(c.id),
      this.balances.findBalance(c.user_id),
      c.definition.variants?.length ? this.variants.results(c.id, c.definition) : undefined,
    ]);
    const rate = t.lastMinute / 60;
    const pace = Math.min(
      ...c.definition.channels.map((ch) => this.config.campaignPacing[ch]),
      c.definition.rate ?? Number.POSITIVE_INFINITY,
    );
    const remaining = remainingSeconds({
      pending: t.counts.pending,
      lastMinute: t.lastMinute,
      runningSeconds: c.started_at ? (this.clock.nowMs() - new Date(c.started_at).getTime()) / 1000 : 0,
      pace,
      runner: CampaignPassCostMeter.figures(this.config, this.passCost),
    });
    const estimated = c.state === 'running' ? new Date(this.clock.nowMs() + remaining * 1000) : null;
    return {
      ...c.definition,
      id: c.id,
      state: c.state,
      pause_reason: c.pause_reason,
      pause_detail: c.pause_detail,
      recipients: c.recipients,
      counts: t.counts,
      channels_used: t.channelsUsed,
      money: { currency: balance?.currency ?? null, held: t.held, spent: t.spent, committed: t.committed },
      current_rate: Math.round(rate * 100) / 100,
      estimated_finish_at: seconds(estimated),
      created_at: unixSeconds(c.created_at),
      updated_at: unixSeconds(c.updated_at),
      launched_at: seconds(c.launched_at),
      started_at: seconds(c.started_at),
      completed_at: seconds(c.completed_at),
      ...(await this.replies.summary(c.id, acceptedOf(t.counts))),
      ...(c.definition.variants?.length ? { variant_results: variantResults } : {}),
    };
  }

  private accountOf(req: { account_id: string }): string {
    if (typeof req?.account_id !== 'string' || !UUID.test(req.account_id)) {
      throw new ValidationProblem([{ field: 'account_id', message: 'must be an account id' }]);
    }
    return req.account_id;
  }

  /** The account's campaign: 404 unknown, 403 another account's. */
  async owned(req: CampaignRef, em?: EntityManager, lock = false): Promise<CampaignRow> {
    const accountId = this.accountOf(req);
    if (typeof req.id !== 'string' || !UUID.test(req.id)) throw new NotFoundProblem('campaign');
    const c = await this.repo.find(req.id, em, lock);
    if (!c) throw new NotFoundProblem('campaign');
    if (c.account_id !== accountId) throw new ForbiddenProblem('The campaign belongs to another account.');
    return c;
  }
}

function definitionOf(raw: unknown) {
  const checked = checkDefinition(raw);
  if (Array.isArray(checked)) throw new ValidationProblem(checked);
  return checked;
}

function notDraft(state: CampaignState): ProblemError {
  return new ProblemError(
    409,
    'campaign-not-draft',
    'Campaign not a draft',
    `The campaign is ${state}: only a draft can be changed or deleted.`,
    { state },
  );
}
