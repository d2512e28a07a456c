import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { EventEnvelope, EventType, isUuid } from '@app/contracts';
import { sqlRows } from '@app/database';
import { EventHandlersRegistry } from '../events';
import { CampaignRunner } from './campaign-runner';

/** Fresh passes one wake-up runs at most (then the regular tick takes over). */
const WAKE_PASSES_MAX = 2;
/** The statuses that settle a message's hold: captured when delivered (or read), released when failed. */
const SETTLING: EventType[] = ['message.delivered', 'message.read', 'message.failed'];

/**
 * Wakes a campaign waiting for its budget (docs/campaigns.md#the-budget) as soon as a hold of its
 * messages settles, instead of at its runner's next tick: after the status is applied (the hold
 * captured or released, committed), a campaign that waits has this process's runner take a pass
 * at once. One primary-key read per status of a campaign's message; the passes are coalesced (at
 * most one under way and two more after it), so a burst of statuses wakes the runner a few times,
 * not once each. The regular tick still counts again (a lapsed reservation frees room too).
 */
@Injectable()
export class CampaignBudgetWake implements OnApplicationBootstrap {
  private readonly logger = new Logger(CampaignBudgetWake.name);
  private pending = false;
  private draining: Promise<void> | null = null;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly registry: EventHandlersRegistry,
    private readonly runner: CampaignRunner,
  ) {}

  /** After every module's init: the statuses' own handler (which settles the hold) runs first. */
  onApplicationBootstrap(): void {
    for (const type of SETTLING) this.registry.on(type, (event) => this.onSettled(event));
  }

  /** Wakes the runner when the event's campaign waits for its budget; never fails the event. */
  async onSettled(event: EventEnvelope): Promise<void> {
    const campaignId = (event.data as { campaign_id?: unknown } | null)?.campaign_id;
    if (!isUuid(campaignId)) return;
    try {
      const [waits] = await sqlRows<{ id: string }>(
        this.ds,
        `SELECT id FROM campaigns WHERE id = $1 AND state = 'running' AND budget_wait IS NOT NULL`,
        [campaignId.toLowerCase()],
      );
      if (waits) this.wake();
    } catch (err) {
      this.logger.warn({ err, campaignId }, 'budget wake-up not checked; the next tick counts again');
    }
  }

  /** A pass of the runner now, and one more if woken again meanwhile (the first may be one already under way). */
  wake(): void {
    this.pending = true;
    this.draining ??= this.drain().finally(() => (this.draining = null));
  }

  private async drain(): Promise<void> {
    try {
      // A pass under way may have counted before the hold settled: the loop runs a fresh one after it.
      await this.runner.tick();
      // At most two fresh passes per wake-up: statuses arriving all the time never keep the runner
      // busy without pause (what settles after them is counted by the regular tick).
      for (let i = 0; this.pending && i < WAKE_PASSES_MAX; i++) {
        this.pending = false;
        await this.runner.tick();
      }
    } catch (err) {
      this.logger.warn({ err }, 'budget wake-up pass failed; the next tick counts again');
    } finally {
      this.pending = false;
    }
  }
}
