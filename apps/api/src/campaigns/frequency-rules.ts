import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  CampaignFrequencyRequest,
  CampaignFrequencyResult,
  CampaignSettings,
  effectiveFrequency,
  FREQUENCY_PROBLEM,
  FREQUENCY_SKIPS,
  frequencyRulesErrors,
  FrequencyRules,
  FrequencySkip,
} from '@app/contracts';
import { Clock, ProblemError, UnprocessableProblem, ValidationProblem } from '@app/server';
import { ContactHistory, FrequencyRepository } from './frequency-repository';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** One marketing campaign send, as the rules judge it. */
export interface FrequencySend {
  userId: string;
  campaignId: string;
  seq: number;
  contactId: string;
  template: string;
  /** The template's category: only MARKETING counts. */
  category: string;
  /** The campaign's override of the account's rules. */
  override: FrequencyRules | null | undefined;
}

/** The rule a contact's history breaks under these rules, or null. */
export function frequencyBreak(rules: CampaignSettings, h: ContactHistory): FrequencySkip | null {
  if (rules.frequency_cap && h.sends >= rules.frequency_cap.messages) return 'frequency_cap';
  if (rules.recent_template_days && h.hadTemplate) return 'recent_template';
  return null;
}

/** The reason a send's problem is the rules' refusal, or null when it is another problem. */
export function frequencySkipOf(err: ProblemError): FrequencySkip | null {
  const reason = err.extensions.reason;
  return err.slug === FREQUENCY_PROBLEM && (FREQUENCY_SKIPS as readonly unknown[]).includes(reason)
    ? (reason as FrequencySkip)
    : null;
}

/**
 * The frequency rules of marketing campaigns (docs/campaigns.md#frequency-rules): the account's
 * settings, the estimate's count of the contacts they keep out, and the send-time check. The check
 * and the record of the send run in the send's own transaction under a per-contact lock, so two
 * runners (or api replicas) never both pass a contact's last place, and a crash before the commit
 * leaves neither the message nor its record.
 */
@Injectable()
export class FrequencyRulesService {
  constructor(
    private readonly repo: FrequencyRepository,
    private readonly clock: Clock,
  ) {}

  settings(userId: string): Promise<CampaignSettings> {
    return this.repo.settings(userId);
  }

  /** Changes the fields given; 400 naming each bad field, nothing changed. */
  updateSettings(userId: string, raw: unknown): Promise<CampaignSettings> {
    const errors = frequencyRulesErrors(raw ?? {}, '');
    if (errors.length) throw new ValidationProblem(errors);
    return this.repo.updateSettings(userId, raw as Partial<CampaignSettings>);
  }

  /** The window starts of the rules at `now` (null: the rule is off). */
  private since(rules: CampaignSettings, nowMs: number): { cap: Date | null; template: Date | null } {
    return {
      cap: rules.frequency_cap ? new Date(nowMs - rules.frequency_cap.period_hours * HOUR_MS) : null,
      template: rules.recent_template_days ? new Date(nowMs - rules.recent_template_days * DAY_MS) : null,
    };
  }

  /** The estimate's dry run: which of the contacts the rules would keep out now. */
  async dryRun(req: CampaignFrequencyRequest): Promise<CampaignFrequencyResult> {
    const none = { excluded: req.contact_ids.map(() => null) };
    if (req.category !== 'MARKETING' || !req.contact_ids.length) return none;
    const rules = effectiveFrequency(await this.repo.settings(req.user_id), req.frequency);
    if (!rules.frequency_cap && !rules.recent_template_days) return none;
    const since = this.since(rules, this.clock.nowMs());
    const histories = await this.repo.histories(req.user_id, req.contact_ids, req.template, since.cap, since.template);
    return { excluded: histories.map((h) => frequencyBreak(rules, h)) };
  }

  /**
   * Runs a recipient's send under the rules: a marketing send first reserves the contact's place
   * (under the contact's lock, in its own transaction, checked against every send and reservation
   * of the other campaigns) or is refused with 422 `frequency-limited` (its `reason` the rule); the
   * send's own transaction turns the reservation into a send (`markSent`); a send that throws gives
   * it back. A crash in between leaves the reservation, which counts until the recipient is taken
   * again: a contact is never sent past the rules.
   */
  async around<T>(send: FrequencySend, run: () => Promise<T>): Promise<T> {
    if (send.category !== 'MARKETING') return run();
    await this.repo.transaction(async (em) => {
      await this.repo.lockContact(em, send.userId, send.contactId);
      const rules = effectiveFrequency(await this.repo.settings(send.userId, em), send.override);
      const nowMs = this.clock.nowMs();
      if (rules.frequency_cap || rules.recent_template_days) {
        const since = this.since(rules, nowMs);
        const own = { campaignId: send.campaignId, seq: send.seq };
        const [history] = await this.repo.histories(
          send.userId,
          [send.contactId],
          send.template,
          since.cap,
          since.template,
          em,
          own,
        );
        const broken = frequencyBreak(rules, history);
        if (broken) throw frequencyLimited(broken, rules);
      }
      await this.repo.reserve(em, { ...send, sentAt: new Date(nowMs) });
    });
    try {
      return await run();
    } catch (err) {
      await this.repo.release(send.campaignId, send.seq);
      throw err;
    }
  }

  /** In the send's own transaction: the recipient's reservation becomes a send (nothing for other categories). */
  markSent(em: EntityManager, campaignId: string, seq: number): Promise<void> {
    return this.repo.markSent(em, campaignId, seq, this.clock.now());
  }
}

function frequencyLimited(reason: FrequencySkip, rules: CampaignSettings): UnprocessableProblem {
  const detail =
    reason === 'frequency_cap'
      ? `The contact already had ${rules.frequency_cap!.messages} marketing campaign messages in ${rules.frequency_cap!.period_hours} hours.`
      : `The contact had this template within ${rules.recent_template_days} days.`;
  return new UnprocessableProblem(FREQUENCY_PROBLEM, 'Frequency limited', detail, { reason });
}
