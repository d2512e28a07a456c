import { Injectable } from '@nestjs/common';
import { Clock, PeriodicService } from '@app/server';
import { AuthenticatedAccount } from '../accounts/authenticated-account';
import { ConversationSettingsDto, UpdateConversationSettingsDto } from './retention.dto';
import { RetentionRepository, RetentionSetting } from './retention.repository';
import { PurgedMediaCleaner } from './retention-media';

/** How often the purge runs: an account keeping metadata only (0 days) has content for at most this long. */
export const RETENTION_PURGE_EVERY_MS = 60_000;
/** Messages purged per statement, and accounts read per page: every step is bounded. */
const PURGE_BATCH = 500;
const ACCOUNTS_PAGE = 200;
const DAY_MS = 24 * 3600 * 1000;

const view = (s: RetentionSetting): ConversationSettingsDto => ({
  content_retention: s.days,
  updated_at: s.updatedAt ? Math.floor(new Date(s.updatedAt).getTime() / 1000) : null,
});

/**
 * Content retention of conversations (docs/conversations.md, Content retention): each account's
 * `content_retention` (days), and the housekeeping pass that blanks the content of messages older
 * than it (text, captions, media, form answers), deletes their stored media and blanks the
 * conversations' previews of them; the thread's metadata stays. The pass walks accounts a page at a
 * time and each account's messages in bounded batches, yielding between them; replicas skip the
 * rows another one is purging (FOR UPDATE SKIP LOCKED), so nothing is done twice.
 */
@Injectable()
export class ConversationRetention extends PeriodicService<number> {
  constructor(
    private readonly retention: RetentionRepository,
    private readonly media: PurgedMediaCleaner,
    private readonly clock: Clock,
  ) {
    super('conversation content retention', RETENTION_PURGE_EVERY_MS);
  }

  async settings(account: AuthenticatedAccount): Promise<ConversationSettingsDto> {
    return view(await this.retention.setting(account.id));
  }

  async update(account: AuthenticatedAccount, dto: UpdateConversationSettingsDto): Promise<ConversationSettingsDto> {
    return view(await this.retention.setSetting(account.id, dto.content_retention, this.clock.now()));
  }

  /** One purge pass now (or the one under way): the number of messages whose content it removed. */
  purgeNow(): Promise<number> {
    return this.runNow();
  }

  protected async pass(): Promise<number> {
    let purged = 0;
    let after: string | null = null;
    for (;;) {
      const now = this.clock.now();
      const accounts = await this.retention.accountsWithDueContent(after, now, ACCOUNTS_PAGE);
      for (const a of accounts) purged += await this.purgeAccount(a.id, new Date(now.getTime() - a.days * DAY_MS), now);
      if (accounts.length < ACCOUNTS_PAGE) break;
      after = accounts[accounts.length - 1].id;
    }
    // The kept content of failover sends no status took (their messages are in no thread).
    while ((await this.retention.purgeKeptContents(this.clock.now(), PURGE_BATCH)) === PURGE_BATCH) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (purged > 0) this.logger.log({ purged }, 'conversation content past its retention purged');
    return purged;
  }

  private async purgeAccount(accountId: string, cutoff: Date, now: Date): Promise<number> {
    let total = 0;
    for (;;) {
      const batch = await this.retention.purgeBatch(accountId, cutoff, now, PURGE_BATCH, (withMedia, db) =>
        this.media.forget(withMedia, db),
      );
      total += batch.length;
      if (batch.length < PURGE_BATCH) return total;
      // Yield between batches: the purge never holds the event loop or one transaction for long.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}
