import { Injectable } from '@nestjs/common';
import { Clock } from '@app/server';
import { CampaignsRepository, CampaignTotals } from './campaigns.repository';

/**
 * A campaign's totals are read anew at most once in this many times the last read took: a view
 * polled continuously costs the api at most a twenty-first of a core per campaign, whatever its size.
 */
export const TOTALS_REUSE_FACTOR = 20;
/** However long the read took, a view's counts are never older than this. */
export const TOTALS_MAX_AGE_MS = 5000;
/** Campaigns whose totals are kept at once; the least recently read goes first. */
const MAX_CAMPAIGNS = 1000;

interface Entry {
  value: Promise<CampaignTotals>;
  /** Until when the read is reused (null while it runs: everyone asking meanwhile shares it). */
  freshUntil: number | null;
}

/**
 * The totals that views (`GET /v1/campaigns/{id}`, the list) show. They sum every recipient and
 * message of the campaign, so each read costs in proportion to its size: concurrent views of one
 * campaign share one read, and a read is reused for twenty times as long as it took (at most 5 s),
 * so that a 100,000-recipient campaign watched by many cannot take the api's CPU. A small campaign's
 * read takes milliseconds and is reused for about as long: its views stay current. State changes
 * read their totals in their own transaction (exact, and given to the event and the change's
 * answer), and the next view after one reads anew.
 */
@Injectable()
export class CampaignTotalsCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly repo: CampaignsRepository,
    private readonly clock: Clock,
  ) {}

  get(campaignId: string): Promise<CampaignTotals> {
    const entry = this.entries.get(campaignId);
    if (entry && (entry.freshUntil === null || this.clock.nowMs() < entry.freshUntil)) {
      this.touch(campaignId, entry);
      return entry.value;
    }
    const started = this.clock.nowMs();
    const fresh: Entry = { value: this.repo.totals(campaignId), freshUntil: null };
    this.touch(campaignId, fresh);
    fresh.value.then(
      () => {
        const ended = this.clock.nowMs();
        fresh.freshUntil = ended + Math.min(TOTALS_MAX_AGE_MS, (ended - started) * TOTALS_REUSE_FACTOR);
      },
      // A failed read is not kept: the next view reads again.
      () => {
        if (this.entries.get(campaignId) === fresh) this.entries.delete(campaignId);
      },
    );
    return fresh.value;
  }

  /** The campaign changed state: its next view reads anew. */
  forget(campaignId: string): void {
    this.entries.delete(campaignId);
  }

  private touch(campaignId: string, entry: Entry): void {
    this.entries.delete(campaignId);
    this.entries.set(campaignId, entry);
    if (this.entries.size > MAX_CAMPAIGNS) this.entries.delete(this.entries.keys().next().value as string);
  }
}
