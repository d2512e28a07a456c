import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { campaignInstant, FrequencySkip, WINDOW_CLOSED } from '@app/contracts';
import { Clock, PeriodicService, ProblemError } from '@app/server';
import { toUnits, Units } from '../billing/charges';
import { MessagePrices } from '../billing/message-prices';
import { ApiConfig } from '../config';
import type { OutboxEntry } from '../outbox';
import { AttemptWrite, GatewaySendsService } from '../sending';
import { BudgetFit, budgetReachedDetail, budgetStillWaits, budgetUnits, reserveWithinBudget } from './campaign-budget';
import { creditCountedTo, creditWindowMs, isTimeZone, quietHoursEnd, sendAllowance } from './campaign-rules';
import { CampaignSendable, categoryOn } from './campaign-template';
import { campaignSendables } from './campaign-variants';
import { contentChoice } from './campaign-content-send';
import { ConversationsService } from '../conversations/conversations.service';
import { CampaignPassCostMeter } from './campaign-pass-cost';
import { CampaignRow, CampaignsRepository, ClaimedRecipient } from './campaigns.repository';
import { CampaignsService } from './campaigns.service';
import { FrequencyRulesService, frequencySkipOf } from './frequency-rules';

/** Running campaigns one runner takes per tick (the others go to other replicas, or the next tick). */
const CAMPAIGNS_PER_TICK = 20;
/** How long a recipient waits after a send failed for a reason a retry may fix (503). */
const RETRY_MS = 1000;

/** What one tick took of a campaign, to send after its transaction committed. */
interface TakenCampaign {
  campaign: CampaignRow;
  recipients: ClaimedRecipient[];
}

/** What happened to one recipient's send. */
export type SendOutcome =
  | { kind: 'sent' }
  | { kind: 'skipped'; reason: 'opted_out' | 'consent_required' | 'refused' | 'window_closed' | FrequencySkip }
  | { kind: 'tier'; retryAfterSeconds: number }
  | { kind: 'pause'; reason: 'insufficient_balance' | 'marketing_paused' | 'template_unavailable'; detail: string }
  | { kind: 'retry' };

/** How the runner answers a send's problem (docs/campaigns.md#running). */
export function outcomeOf(err: unknown): SendOutcome {
  if (!(err instanceof ProblemError)) return { kind: 'retry' };
  const detail = err.detail ?? err.title;
  const limited = frequencySkipOf(err);
  if (limited) return { kind: 'skipped', reason: limited };
  switch (err.slug) {
    case 'recipient-opted-out':
      return { kind: 'skipped', reason: 'opted_out' };
    case 'consent-required':
      return { kind: 'skipped', reason: 'consent_required' };
    case 'messaging-tier-exceeded':
      return { kind: 'tier', retryAfterSeconds: Number(err.headers['Retry-After'] ?? 60) || 60 };
    case 'insufficient-balance':
      return { kind: 'pause', reason: 'insufficient_balance', detail };
    case 'marketing-paused':
      return { kind: 'pause', reason: 'marketing_paused', detail };
    case 'idempotency-key-reuse':
      return { kind: 'skipped', reason: 'refused' };
    case WINDOW_CLOSED:
      // A content campaign's recipient reachable on WhatsApp alone, its window closed, no fallback template.
      return { kind: 'skipped', reason: 'window_closed' };
  }
  // This recipient's own params do not fit the template (the campaign's were checked for the batch).
  const fields = ((err.extensions.errors ?? []) as { field: string }[]).map((e) => e.field);
  if (err.status === 400 && fields.length > 0 && fields.every((f) => f === 'params')) {
    return { kind: 'skipped', reason: 'refused' };
  }
  // The template (or the app sending it) refused: every recipient would be, so the campaign waits.
  if (err.status === 400 || err.status === 403 || err.status === 404) {
    return { kind: 'pause', reason: 'template_unavailable', detail };
  }
  if (err.status === 422) return { kind: 'skipped', reason: 'refused' };
  return { kind: 'retry' };
}

/**
 * Sends every running campaign (docs/campaigns.md#running), in every api process: each tick, in
 * one short transaction, it starts the scheduled campaigns whose time came, locks the running ones
 * no other replica holds (SKIP LOCKED), and claims each one's next due recipients as its pace
 * allows; then sends them concurrently through the one send path, where each recipient's mark
 * commits with its message.
 */
@Injectable()
export class CampaignRunner extends PeriodicService<number> {
  constructor(
    private readonly repo: CampaignsRepository,
    private readonly campaigns: CampaignsService,
    private readonly gatewaySends: GatewaySendsService,
    private readonly prices: MessagePrices,
    private readonly clock: Clock,
    private readonly config: ApiConfig,
    private readonly frequency: FrequencyRulesService,
    private readonly windows: ConversationsService,
    private readonly passCost: CampaignPassCostMeter,
  ) {
    super('campaign runner', config.CAMPAIGN_TICK_MS);
  }

  /** One tick now (or the one under way): how many recipients it took. */
  tick(): Promise<number> {
    return this.runNow();
  }

  protected async pass(): Promise<number> {
    const started = performance.now();
    const { taken, events } = await this.repo.transaction(async (em) => {
      const events: OutboxEntry[] = [];
      for (const started of await this.repo.promoteDue(em)) {
        events.push((await this.campaigns.record(em, started, 'campaign.started')).entry);
      }
      const taken: TakenCampaign[] = [];
      // One tick's sends are in flight together: their number is bounded over all campaigns, not
      // per campaign (the campaigns not served go first next tick: they are locked by last tick).
      let room = this.config.CAMPAIGN_BATCH_MAX;
      for (const c of await this.repo.lockRunning(em, CAMPAIGNS_PER_TICK)) {
        const now = new Date(c.now);
        const endBy = campaignInstant(c.definition.schedule?.end_by);
        if (endBy && endBy <= now) await this.repo.skipPending(em, c.id, 'end_by_passed');
        if (!(await this.repo.hasPending(em, c.id))) {
          const done = await this.repo.setState(em, c.id, 'completed', { now: ['completed_at'] });
          events.push((await this.campaigns.record(em, done, 'campaign.completed')).entry);
          continue;
        }
        if (room <= 0 || (await this.budgetWaits(em, c, events))) continue;
        const recipients = await this.claim(em, c, now, room);
        room -= recipients.length;
        if (recipients.length) taken.push({ campaign: c, recipients });
      }
      return { taken, events };
    });
    for (const e of events) this.campaigns.publish(e);
    await Promise.all(taken.map((t) => this.sendCampaign(t)));
    const sent = taken.reduce((n, t) => n + t.recipients.length, 0);
    // What the pass cost, for the estimate's model of the runner (docs/campaigns.md#the-estimates-time).
    this.passCost.record(sent, performance.now() - started);
    return sent;
  }

  /**
   * A campaign waiting for its budget (docs/campaigns.md#the-budget) counts again, claiming
   * nothing: true while it still waits, or once it paused because what was captured leaves no room
   * for its next recipient (the pause's event joins `events`); false when it may claim.
   */
  private async budgetWaits(em: EntityManager, c: CampaignRow, events: OutboxEntry[]): Promise<boolean> {
    const budget = budgetUnits(c);
    if (budget === null || c.budget_wait === null) return false;
    const verdict = await budgetStillWaits(em, c, budget);
    if (verdict?.kind === 'pause') {
      const paused = await this.campaigns.pauseIn(em, c.id, 'budget_reached', budgetReachedDetail(c, verdict));
      if (paused) events.push(paused.entry);
    }
    return verdict !== null;
  }

  /** The recipients this tick may take of one campaign, by first channel in the campaign's order. */
  private async claim(em: EntityManager, c: CampaignRow, now: Date, room: number): Promise<ClaimedRecipient[]> {
    const allowance = sendAllowance({
      elapsedMs: c.last_tick_at ? now.getTime() - new Date(c.last_tick_at).getTime() : null,
      pacing: this.config.campaignPacing,
      channels: c.definition.channels,
      rate: c.definition.rate ?? null,
      batchMax: room,
    });
    let left = allowance.total;
    const claimed: ClaimedRecipient[] = [];
    const waiting = c.whatsapp_wait_until && new Date(c.whatsapp_wait_until) > now;
    // A recipient's route is the campaign's channels it has an identity on, so it starts on one of them.
    for (const channel of c.definition.channels) {
      if (left <= 0) break;
      if (channel === 'whatsapp' && waiting) continue;
      const n = Math.min(left, allowance.perChannel[channel] || 0);
      if (n <= 0) continue;
      const got = await this.repo.claim(em, c.id, channel, n, this.config.CAMPAIGN_CLAIM_SECONDS);
      claimed.push(...got);
      left -= got.length;
    }
    // Credit below one message carries over to the next tick: under a `rate`, the tick is counted
    // as far as the messages taken used it (never more than one credit behind), else to now.
    if (claimed.length || allowance.total > 0)
      await this.repo.markTick(
        em,
        c.id,
        creditCountedTo({
          last: c.last_tick_at ? new Date(c.last_tick_at) : null,
          now,
          taken: claimed.length,
          rate: c.definition.rate ?? null,
          creditMs: creditWindowMs(this.config.campaignPacing, c.definition.channels, c.definition.rate ?? null),
        }),
      );
    return claimed.sort((a, b) => a.seq - b.seq);
  }

  /** Sends one campaign's claimed recipients and acts on each outcome. */
  private async sendCampaign({ campaign: c, recipients }: TakenCampaign): Promise<void> {
    // Each recipient's template: the campaign's, or its variant's (docs/campaigns.md#variants).
    let sendableOf: (r: ClaimedRecipient) => CampaignSendable;
    try {
      sendableOf = await campaignSendables(c, recipients, (d) => this.campaigns.sendable(d, c.template_app_id));
    } catch (err) {
      const outcome = outcomeOf(err);
      await this.repo.release(
        c.id,
        recipients.map((r) => r.seq),
      );
      if (outcome.kind === 'retry') {
        this.logger.warn({ err, campaignId: c.id }, 'campaign template not resolved; retrying');
      } else {
        // The definition itself no longer sends (its template, its params, its app).
        const detail = err instanceof ProblemError ? (err.detail ?? err.title) : 'The template cannot be sent.';
        await this.campaigns.pauseCampaign(
          c.id,
          outcome.kind === 'pause' ? outcome.reason : 'template_unavailable',
          detail,
        );
      }
      return;
    }
    const now = this.clock.now();
    let due: ClaimedRecipient[] = [];
    // Recipients inside quiet hours, by the instant their quiet hours end.
    const quiet = new Map<number, number[]>();
    for (const r of recipients) {
      const zone = isTimeZone(r.time_zone) ? r.time_zone : 'UTC';
      const quietEnd = c.definition.quiet_hours ? quietHoursEnd(now, zone, c.definition.quiet_hours) : null;
      if (quietEnd) {
        quiet.set(quietEnd.getTime(), [...(quiet.get(quietEnd.getTime()) ?? []), r.seq]);
        continue;
      }
      due.push(r);
    }
    for (const [at, seqs] of quiet) await this.repo.release(c.id, seqs, new Date(at));
    // The budget: what fits is reserved, the rest waits for holds to settle or pauses the campaign.
    const budget = budgetUnits(c);
    let overBudget: BudgetFit['verdict'] = null;
    if (budget !== null && due.length) {
      const needs = due.map((r) => ({ seq: r.seq, need: this.mostHeld(sendableOf(r), r) }));
      const fit = await reserveWithinBudget(this.repo, c, budget, needs);
      const send = new Set(fit.send);
      due = due.filter((r) => send.has(r.seq));
      overBudget = fit.verdict;
    }
    const results = await Promise.allSettled(due.map((r) => this.sendOne(c, sendableOf(r), r)));
    let pause: Extract<SendOutcome, { kind: 'pause' }> | null = null;
    for (let i = 0; i < due.length; i++) {
      const r = due[i];
      const result = results[i];
      const outcome: SendOutcome = result.status === 'fulfilled' ? { kind: 'sent' } : outcomeOf(result.reason);
      try {
        switch (outcome.kind) {
          case 'sent':
            break;
          case 'skipped':
            await this.repo.skip(c.id, r.seq, outcome.reason);
            break;
          case 'tier': {
            const until = new Date(this.clock.nowMs() + outcome.retryAfterSeconds * 1000);
            await this.repo.waitWhatsApp(c.id, until);
            await this.repo.release(c.id, [r.seq], until);
            break;
          }
          case 'pause':
            pause ??= outcome;
            await this.repo.release(c.id, [r.seq]);
            break;
          case 'retry': {
            const next = new Date(this.clock.nowMs() + RETRY_MS);
            await this.repo.release(c.id, [r.seq], next);
            if (result.status === 'rejected') {
              this.logger.warn({ err: result.reason, campaignId: c.id, seq: r.seq }, 'campaign send will be retried');
            }
            break;
          }
        }
      } catch (err) {
        // The claim lapses after CAMPAIGN_CLAIM_SECONDS and the recipient is taken again.
        this.logger.error({ err, campaignId: c.id, seq: r.seq }, 'campaign recipient not updated');
      }
    }
    if (pause) await this.campaigns.pauseCampaign(c.id, pause.reason, pause.detail);
    // After the sends within the budget, so the pause counts them. A wait needs nothing: the next
    // tick counts again (a hold released by a failed message frees its room).
    if (overBudget?.kind === 'pause' && !pause) {
      await this.campaigns.pauseCampaign(c.id, 'budget_reached', budgetReachedDetail(c, overBudget));
    }
  }

  /**
   * The most a recipient's message may hold: the dearest channel of its route, each at the category
   * of what it sends there, in ten-thousandths.
   */
  private mostHeld(sendable: CampaignSendable, r: ClaimedRecipient): Units {
    const priced = [sendable, ...(sendable.fallback ? [sendable.fallback] : [])];
    return r.route.reduce((most, s) => {
      for (const p of priced) {
        const price = toUnits(this.prices.priceOf(categoryOn(p, s.channel), s.channel));
        if (price > most) most = price;
      }
      return most;
    }, 0n);
  }

  private async sendOne(c: CampaignRow, campaignSendable: CampaignSendable, r: ClaimedRecipient): Promise<void> {
    // A content campaign's recipient with its WhatsApp window closed gets the fallback template.
    const sendable = await contentChoice(campaignSendable, r.route, (app, to) => this.windows.isOpen(app, to));
    const mark: AttemptWrite = async (em, id, attempt) => {
      await this.frequency.markSent(em, c.id, r.seq);
      const ok = await this.repo.markSent(em, {
        campaignId: c.id,
        seq: r.seq,
        messageId: id,
        channel: attempt.channel,
      });
      if (!ok) this.logger.error({ campaignId: c.id, seq: r.seq, messageId: id }, 'campaign recipient not marked sent');
    };
    // The frequency rules reserve the contact's place first (docs/campaigns.md#frequency-rules).
    const { name: template, category } = sendable;
    const rules = { template, category, override: c.definition.frequency, userId: c.user_id, contactId: r.contact_id };
    const result = await this.frequency.around({ ...rules, campaignId: c.id, seq: r.seq }, () =>
      this.gatewaySends.sendForCampaign({
        campaignId: c.id,
        seq: r.seq,
        userId: c.user_id,
        accountId: c.account_id,
        app: sendable.app,
        template: sendable.template,
        bot: sendable.bot,
        content: sendable.content,
        route: r.route,
        params: r.params,
        mediaUrl: c.definition.media_url ?? null,
        alsoWrite: mark,
        contact: { id: r.contact_id, external_id: r.external_id },
      }),
    );
    // A replay answers the message an earlier try committed: the recipient is that one's.
    if (result.replayed) await this.repo.markReplayed(c.id, r.seq, result.id);
  }
}
