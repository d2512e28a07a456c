import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { BotTemplateCategory, SendContent, TemplateQuality } from '@app/contracts';
import { BatchedLookup } from '@app/database';

/** One version of a bot template, as stored. */
export interface BotTemplateRow {
  name: string;
  language: string;
  version: number;
  category: BotTemplateCategory;
  content: SendContent;
  params: number;
  created_at: Date;
}

/** A row of the templates list: a bot template's latest version or one of the WhatsApp app's templates. */
export interface ListedTemplateRow {
  source: 'bot' | 'whatsapp';
  name: string;
  language: string;
  category: string;
  version: number | null;
  status: string | null;
  /** A Meta template's quality rating; null for a bot template. */
  quality: TemplateQuality | null;
  content: SendContent | null;
  params: number | null;
  created_at: Date;
  header: { text?: string } | null;
  body: { text?: string } | null;
  buttons: { url?: string }[] | null;
  /** A Meta template: whether a bot template of the same name and language serves the bot channels. */
  has_bot: boolean;
}

const BOT_COLUMNS = 'name, language, version, category, content, params, created_at';
const sendKey = (accountId: string, name: string) => `${accountId} ${name}`;

/** The account's bot templates: every version kept, the latest sent. */
@Injectable()
export class BotTemplatesRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * Stores the next version of the name and language (1 for a new one). Two creations at once
   * cannot take the same version: the loser of the unique key answers null, and is tried again.
   */
  async insertNext(
    t: Omit<BotTemplateRow, 'version' | 'created_at'> & { accountId: string; userId: string; at: Date },
  ): Promise<BotTemplateRow | null> {
    const rows: BotTemplateRow[] = await this.ds.query(
      `INSERT INTO bot_templates (account_id, user_id, name, language, version, category, content, params, created_at)
       SELECT $1::uuid, $2::uuid, $3::text, $4::text, COALESCE(MAX(version), 0) + 1, $5::text, $6::jsonb, $7::smallint, $8::timestamptz
         FROM bot_templates WHERE account_id = $1::uuid AND name = $3::text AND language = $4::text
       ON CONFLICT ON CONSTRAINT bot_templates_version_uq DO NOTHING
       RETURNING ${BOT_COLUMNS}`,
      [t.accountId, t.userId, t.name, t.language, t.category, JSON.stringify(t.content), t.params, t.at],
    );
    return rows[0] ?? null;
  }

  /**
   * The latest version of each language of a name, for a send (plain SQL; the lookups of
   * concurrent sends share one query, as a WhatsApp template's do).
   */
  latestOf(accountId: string, name: string): Promise<BotTemplateRow[]> {
    return this.latestByName.all({ accountId, name });
  }

  private readonly latestByName = new BatchedLookup<
    { accountId: string; name: string },
    BotTemplateRow & { key: string }
  >({
    queryKey: (q) => sendKey(q.accountId, q.name),
    rowKey: (t) => t.key,
    load: async (queries) => {
      const rows: (BotTemplateRow & { account_id: string })[] = await this.ds.query(
        `SELECT DISTINCT ON (b.account_id, b.name, b.language) b.account_id, b.name, b.language, b.version, b.category, b.content, b.params, b.created_at
           FROM bot_templates b JOIN unnest($1::uuid[], $2::text[]) AS q(account_id, name)
             ON b.account_id = q.account_id AND b.name = q.name
          ORDER BY b.account_id, b.name, b.language, b.version DESC`,
        [queries.map((q) => q.accountId), queries.map((q) => q.name)],
      );
      return rows.map((r) => ({ ...r, key: sendKey(r.account_id, r.name) }));
    },
  });

  /** One name's bot templates: the latest version of each language, or the given version of one. */
  async findByName(accountId: string, name: string, language?: string, version?: number): Promise<BotTemplateRow[]> {
    if (version !== undefined) {
      return this.ds.query(
        `SELECT ${BOT_COLUMNS} FROM bot_templates
          WHERE account_id = $1 AND name = $2 AND language = $3 AND version = $4`,
        [accountId, name, language, version],
      );
    }
    return this.ds.query(
      `SELECT DISTINCT ON (language) ${BOT_COLUMNS} FROM bot_templates
        WHERE account_id = $1 AND name = $2 AND ($3::text IS NULL OR language = $3::text)
        ORDER BY language, version DESC`,
      [accountId, name, language ?? null],
    );
  }

  /** Deletes every version of a name (of one language when given): how many were deleted. */
  async deleteByName(accountId: string, name: string, language?: string): Promise<number> {
    const [, count]: [unknown, number] = await this.ds.query(
      `DELETE FROM bot_templates WHERE account_id = $1 AND name = $2 AND ($3::text IS NULL OR language = $3::text)`,
      [accountId, name, language ?? null],
    );
    return count;
  }

  /**
   * A page of the account's templates by name, language and source (bot before whatsapp): each
   * bot template's latest version, and the WhatsApp app's templates when one is linked.
   */
  listPage(
    accountId: string,
    appId: number | null,
    after: { name: string; language: string; source: string } | null,
    limit: number,
    name?: string,
  ): Promise<ListedTemplateRow[]> {
    return this.ds.query(
      `WITH bot AS (
         SELECT DISTINCT ON (name, language) 'bot'::text AS source, name, language, category, version,
                NULL::text AS status, NULL::text AS quality, content, params::integer AS params, created_at,
                NULL::jsonb AS header, NULL::jsonb AS body, NULL::jsonb AS buttons, false AS has_bot
           FROM bot_templates WHERE account_id = $1 AND ($7::text IS NULL OR name = $7::text)
          ORDER BY name, language, version DESC
       ), meta AS (
         SELECT 'whatsapp'::text AS source, t.name, t.language, t.category, NULL::integer AS version,
                t.status, t.quality, NULL::jsonb AS content, NULL::integer AS params, t.created_at,
                t.header, t.body, t.buttons,
                EXISTS (SELECT 1 FROM bot_templates b
                         WHERE b.account_id = $1 AND b.name = t.name AND b.language = t.language) AS has_bot
           FROM templates t WHERE t.app_id = $2::integer AND ($7::text IS NULL OR t.name = $7::text)
       )
       SELECT * FROM (SELECT * FROM bot UNION ALL SELECT * FROM meta) x
        WHERE $3::text IS NULL OR (x.name, x.language, x.source) > ($3::text, $4::text, $5::text)
        ORDER BY x.name, x.language, x.source
        LIMIT $6`,
      [accountId, appId, after?.name ?? null, after?.language ?? null, after?.source ?? null, limit, name ?? null],
    );
  }
}
