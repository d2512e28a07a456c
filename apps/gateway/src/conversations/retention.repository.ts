import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { sqlRows } from '@app/database';
import { DEFAULT_CONTENT_RETENTION_DAYS } from './retention.dto';

/** An account's content retention as stored (no row: the default). */
export interface RetentionSetting {
  days: number;
  updatedAt: Date | null;
}

/** One purged message: what its content named of a file (`content.media`), for the media store to delete. */
export interface PurgedMessage {
  id: string;
  media: unknown;
}

/**
 * The content of a message once purged: its kind only, as `{type, text: null}` (SQL over the
 * column or preview `col`).
 */
const BLANKED = (col: string) => `jsonb_build_object('type', ${col} ->> 'type', 'text', NULL)`;

/** The only place that reads and writes content retention and purges content. */
@Injectable()
export class RetentionRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async setting(accountId: string): Promise<RetentionSetting> {
    const [row] = await sqlRows<{ content_retention_days: number; updated_at: Date }>(
      this.ds,
      `SELECT content_retention_days, updated_at FROM conversation_settings WHERE account_id = $1`,
      [accountId],
    );
    return row
      ? { days: row.content_retention_days, updatedAt: row.updated_at }
      : { days: DEFAULT_CONTENT_RETENTION_DAYS, updatedAt: null };
  }

  async setSetting(accountId: string, days: number, at: Date): Promise<RetentionSetting> {
    await this.ds.query(
      `INSERT INTO conversation_settings (account_id, content_retention_days, updated_at) VALUES ($1, $2, $3)
       ON CONFLICT (account_id) DO UPDATE SET content_retention_days = $2, updated_at = $3`,
      [accountId, days, at],
    );
    return { days, updatedAt: at };
  }

  /**
   * A page of the accounts (by id, after `after`) that have content older than their retention at
   * `now`, with their retention in days: one statement a page, an index probe per account.
   */
  accountsWithDueContent(after: string | null, now: Date, limit: number): Promise<{ id: string; days: number }[]> {
    return sqlRows(
      this.ds,
      `SELECT a.id, r.days FROM accounts a
         LEFT JOIN conversation_settings s ON s.account_id = a.id
         CROSS JOIN LATERAL (SELECT coalesce(s.content_retention_days, $4::int) AS days) r
        WHERE ($1::uuid IS NULL OR a.id > $1::uuid)
          AND EXISTS (SELECT 1 FROM conversation_messages m
                       WHERE m.account_id = a.id AND m.content_purged_at IS NULL
                         AND m.created_at < $2::timestamptz - make_interval(days => r.days))
        ORDER BY a.id LIMIT $3`,
      [after, now, limit, DEFAULT_CONTENT_RETENTION_DAYS],
    );
  }

  /**
   * Blanks the content of up to `limit` of the account's messages stored before `cutoff` (their
   * kind, direction, status, times and ids stay) and the previews of their conversations that show
   * one of them; rows another replica is purging are skipped. `forget` runs first, inside the
   * transaction, with the messages whose content named a file: when it fails nothing is blanked
   * and the batch is tried again at the next pass. Answers the purged messages.
   */
  purgeBatch(
    accountId: string,
    cutoff: Date,
    at: Date,
    limit: number,
    forget: (withMedia: PurgedMessage[], db: EntityManager) => Promise<void>,
  ): Promise<PurgedMessage[]> {
    return this.ds.transaction(async (em) => {
      const due = await sqlRows<PurgedMessage & { conversation_id: string }>(
        em,
        `SELECT id, conversation_id, content -> 'media' AS media FROM conversation_messages
          WHERE account_id = $1 AND content_purged_at IS NULL AND created_at < $2
          ORDER BY created_at LIMIT $3 FOR UPDATE SKIP LOCKED`,
        [accountId, cutoff, limit],
      );
      if (!due.length) return [];
      const purged = due.map(({ id, media }) => ({ id, media }));
      await forget(
        purged.filter((m) => m.media !== null && m.media !== undefined),
        em,
      );
      const ids = purged.map((m) => m.id);
      await em.query(
        `UPDATE conversation_messages SET content = ${BLANKED('content')}, content_purged_at = $2 WHERE id = ANY($1::uuid[])`,
        [ids, at],
      );
      await em.query(
        `UPDATE conversations SET last_message = jsonb_set(last_message, '{content}', ${BLANKED("last_message -> 'content'")})
          WHERE id = ANY($1::uuid[]) AND last_message ->> 'id' = ANY($2::text[])`,
        [[...new Set(due.map((p) => p.conversation_id))], ids],
      );
      return purged;
    });
  }

  /**
   * Removes up to `limit` kept contents of failover sends (outbound_contents) that no status took
   * within their account's retention at `now`; the number removed.
   */
  async purgeKeptContents(now: Date, limit: number): Promise<number> {
    const rows = await sqlRows<{ message_id: string }>(
      this.ds,
      `DELETE FROM outbound_contents WHERE message_id IN (
         SELECT o.message_id FROM outbound_contents o
           LEFT JOIN conversation_settings s ON s.account_id = o.account_id
          WHERE o.created_at < $1::timestamptz - make_interval(days => coalesce(s.content_retention_days, $2::int))
          LIMIT $3 FOR UPDATE OF o SKIP LOCKED)
       RETURNING message_id`,
      [now, DEFAULT_CONTENT_RETENTION_DAYS, limit],
    );
    return rows.length;
  }
}
