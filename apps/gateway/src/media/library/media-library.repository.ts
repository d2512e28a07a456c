import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { SendMediaType } from '@app/contracts';
import { sqlRows } from '@app/database';

/** A file of the media library (`media_library`). */
export interface LibraryMediaRow {
  id: string;
  account_id: string;
  type: SendMediaType;
  mime_type: string;
  /** Bytes, as text (bigint). */
  size: string;
  sha256: string;
  file_name: string | null;
  created_at: Date;
}

/** A connection's handle of a file (`media_channel_handles`); no handle yet while it is uploaded. */
export interface ChannelHandleRow {
  handle: string | null;
  expires_at: Date | null;
  uploading_until: Date | null;
}

/** What a claim came to: a live handle, the upload to make (the claim is held), or another's upload under way. */
export type HandleClaim = { handle: string; expires_at: number | null } | { upload: true } | { wait: true };

const COLUMNS = `id, account_id, type, mime_type, size::text AS size, sha256, file_name, created_at`;

/** The media library's files and each channel connection's handle of them. */
@Injectable()
export class MediaLibraryRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async insert(row: Omit<LibraryMediaRow, 'created_at'>): Promise<LibraryMediaRow> {
    const rows = await sqlRows<LibraryMediaRow>(
      this.ds,
      `INSERT INTO media_library (id, account_id, type, mime_type, size, sha256, file_name)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${COLUMNS}`,
      [row.id, row.account_id, row.type, row.mime_type, row.size, row.sha256, row.file_name],
    );
    return rows[0];
  }

  /** The account's file; null when there is none (or it is another account's). */
  async find(accountId: string, id: string): Promise<LibraryMediaRow | null> {
    const rows = await sqlRows<LibraryMediaRow>(
      this.ds,
      `SELECT ${COLUMNS} FROM media_library WHERE id = $1 AND account_id = $2`,
      [id, accountId],
    );
    return rows[0] ?? null;
  }

  /** A file of any account billed to the user (what a message of that user may send); null when there is none. */
  async findOfUser(userId: string, id: string): Promise<LibraryMediaRow | null> {
    const rows = await sqlRows<LibraryMediaRow>(
      this.ds,
      `SELECT ${COLUMNS.split(', ')
        .map((c) => `m.${c}`)
        .join(', ')}
         FROM media_library m JOIN accounts a ON a.id = m.account_id
        WHERE m.id = $1 AND a.user_id = $2`,
      [id, userId],
    );
    return rows[0] ?? null;
  }

  /** A page of the account's files, newest first, after `cursor` (an id of the previous page). */
  async page(accountId: string, cursor: string | null, limit: number): Promise<LibraryMediaRow[]> {
    return sqlRows<LibraryMediaRow>(
      this.ds,
      `SELECT ${COLUMNS} FROM media_library
        WHERE account_id = $1 AND ($2::uuid IS NULL OR id < $2::uuid)
        ORDER BY id DESC LIMIT $3`,
      [accountId, cursor, limit],
    );
  }

  /** Removes the file's row and its handles; false when the account has no such file. */
  async delete(accountId: string, id: string): Promise<boolean> {
    const rows = await sqlRows<{ id: string }>(
      this.ds,
      `DELETE FROM media_library WHERE id = $1 AND account_id = $2 RETURNING id`,
      [id, accountId],
    );
    return rows.length > 0;
  }

  /**
   * Remembers the account's files a campaign sends (its definition's, replacing what an earlier one
   * sent); an id that is no file of the account is not kept.
   */
  async rememberCampaignUses(accountId: string, campaignId: string, mediaIds: string[]): Promise<void> {
    await this.ds.transaction(async (m) => {
      await m.query(`DELETE FROM media_campaign_uses WHERE campaign_id = $1`, [campaignId]);
      if (!mediaIds.length) return;
      await m.query(
        `INSERT INTO media_campaign_uses (media_id, campaign_id)
         SELECT id, $2 FROM media_library WHERE account_id = $1 AND id = ANY($3::uuid[])
         ON CONFLICT DO NOTHING`,
        [accountId, campaignId, mediaIds],
      );
    });
  }

  /** The campaigns remembered as sending the file, oldest use first. */
  async campaignsUsing(mediaId: string): Promise<string[]> {
    const rows = await sqlRows<{ campaign_id: string }>(
      this.ds,
      `SELECT campaign_id FROM media_campaign_uses WHERE media_id = $1 ORDER BY campaign_id`,
      [mediaId],
    );
    return rows.map((r) => r.campaign_id);
  }

  /** Forgets that a campaign sends the file (it no longer does, or no longer will). */
  async forgetCampaignUse(mediaId: string, campaignId: string): Promise<void> {
    await this.ds.query(`DELETE FROM media_campaign_uses WHERE media_id = $1 AND campaign_id = $2`, [
      mediaId,
      campaignId,
    ]);
  }

  /**
   * The connection's handle of the file, or the right to upload it: a live handle is answered; with
   * none (or an expired one, or `stale` named as no longer valid), the caller that finds no upload
   * under way claims it for `leaseSeconds` (the row's lock makes concurrent claims take turns, so
   * one uploads); the others are told to wait.
   */
  async claim(
    mediaId: string,
    channel: string,
    connection: string,
    leaseSeconds: number,
    stale: string | null,
  ): Promise<HandleClaim> {
    return this.ds.transaction(async (m) => {
      await m.query(
        `INSERT INTO media_channel_handles (media_id, channel, connection) VALUES ($1, $2, $3)
         ON CONFLICT DO NOTHING`,
        [mediaId, channel, connection],
      );
      const rows = (await m.query(
        `SELECT handle, expires_at,
                handle IS NOT NULL AND handle IS DISTINCT FROM $4::text AND (expires_at IS NULL OR expires_at > now()) AS live,
                uploading_until IS NOT NULL AND uploading_until > now() AS uploading
           FROM media_channel_handles
          WHERE media_id = $1 AND channel = $2 AND connection = $3 FOR UPDATE`,
        [mediaId, channel, connection, stale],
      )) as (Pick<ChannelHandleRow, 'handle' | 'expires_at'> & { live: boolean; uploading: boolean })[];
      const row = rows[0];
      if (row.live)
        return { handle: row.handle!, expires_at: row.expires_at ? Math.floor(row.expires_at.getTime() / 1000) : null };
      if (row.uploading) return { wait: true };
      await m.query(
        `UPDATE media_channel_handles SET uploading_until = now() + make_interval(secs => $4), updated_at = now()
          WHERE media_id = $1 AND channel = $2 AND connection = $3`,
        [mediaId, channel, connection, leaseSeconds],
      );
      return { upload: true };
    });
  }

  /** Keeps the handle an upload got (ending its claim); nothing when the file was deleted meanwhile. */
  async keep(
    mediaId: string,
    channel: string,
    connection: string,
    handle: string,
    expiresAt: Date | null,
  ): Promise<void> {
    await this.ds.query(
      `UPDATE media_channel_handles SET handle = $4, expires_at = $5, uploading_until = NULL, updated_at = now()
        WHERE media_id = $1 AND channel = $2 AND connection = $3`,
      [mediaId, channel, connection, handle, expiresAt],
    );
  }

  /** Ends a claim whose upload failed, so the next send tries again. */
  async release(mediaId: string, channel: string, connection: string): Promise<void> {
    await this.ds.query(
      `UPDATE media_channel_handles SET uploading_until = NULL, updated_at = now()
        WHERE media_id = $1 AND channel = $2 AND connection = $3`,
      [mediaId, channel, connection],
    );
  }
}
