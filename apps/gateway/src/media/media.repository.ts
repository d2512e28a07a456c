import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { InboundMedia } from '@app/contracts';
import { sqlRows } from '@app/database';

/** What became of an inbound file; no row: still pending. */
export type MediaOutcome = 'stored' | 'too_large' | 'failed';

/** A row of `inbound_media`. */
export interface InboundMediaRow {
  message_id: string;
  account_id: string;
  status: MediaOutcome;
  mime_type: string | null;
  size: string | null;
  file_name: string | null;
}

/** An inbound conversation message with a file, and what fetching it needs. */
export interface MediaSourceRow {
  message_id: string;
  account_id: string;
  channel: string;
  connection_id: string;
  app_id: number | null;
  credential: string | null;
  state: string;
  media: InboundMedia | null;
}

/** The `inbound_media` table: one row per inbound message whose file was fetched, refused or given up on. */
@Injectable()
export class MediaRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** The inbound message with its file and its connection; null when it is gone or has no file. */
  async source(messageId: string): Promise<MediaSourceRow | null> {
    const rows = await sqlRows<MediaSourceRow>(
      this.ds,
      `SELECT m.id AS message_id, m.account_id, c.channel, c.connection_id, k.app_id, k.credential, k.state,
              m.content -> 'media' AS media
         FROM conversation_messages m
         JOIN conversations c ON c.id = m.conversation_id
         JOIN connections k ON k.id = c.connection_id
        WHERE m.id = $1 AND m.direction = 'in'`,
      [messageId],
    );
    const row = rows[0];
    return row && row.media && typeof row.media.handle === 'string' ? row : null;
  }

  async find(messageId: string): Promise<InboundMediaRow | null> {
    const rows = await sqlRows<InboundMediaRow>(
      this.ds,
      `SELECT message_id, account_id, status, mime_type, size::text AS size, file_name
         FROM inbound_media WHERE message_id = $1`,
      [messageId],
    );
    return rows[0] ?? null;
  }

  /** The rows of a page of messages, by message id (the rest are pending). */
  async ofMessages(messageIds: string[]): Promise<Map<string, InboundMediaRow>> {
    if (!messageIds.length) return new Map();
    const rows = await sqlRows<InboundMediaRow>(
      this.ds,
      `SELECT message_id, account_id, status, mime_type, size::text AS size, file_name
         FROM inbound_media WHERE message_id = ANY($1::uuid[])`,
      [messageIds],
    );
    return new Map(rows.map((r) => [r.message_id, r]));
  }

  /** Records the outcome; a repeat fetch writes the same again. */
  async record(
    row: Pick<MediaSourceRow, 'message_id' | 'account_id'>,
    outcome: MediaOutcome,
    file: { mimeType: string | null; size: number | null; fileName: string | null; reason?: string },
  ): Promise<void> {
    await this.ds.query(
      `INSERT INTO inbound_media (message_id, account_id, status, mime_type, size, file_name, reason, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, now())
       ON CONFLICT (message_id) DO UPDATE SET status = EXCLUDED.status, mime_type = EXCLUDED.mime_type,
         size = EXCLUDED.size, file_name = EXCLUDED.file_name, reason = EXCLUDED.reason, updated_at = now()`,
      [row.message_id, row.account_id, outcome, file.mimeType, file.size, file.fileName, file.reason ?? null],
    );
  }
}
