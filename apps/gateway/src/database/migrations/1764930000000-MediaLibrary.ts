import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The media library (docs/media.md): files an account uploaded to send, kept in the media store
 * (the object `library.<account>.<id>`), and each channel connection's handle of each file (a
 * WhatsApp media id, a Telegram file_id, a MAX upload token), uploaded once and renewed when it
 * expires. `uploading_until`: a sender is uploading the file to that connection until then.
 */
export class MediaLibrary1764930000000 implements MigrationInterface {
  name = 'MediaLibrary1764930000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE media_library (
        id uuid PRIMARY KEY,
        account_id uuid NOT NULL,
        type text NOT NULL CHECK (type IN ('image', 'video', 'audio', 'document')),
        mime_type text NOT NULL,
        size bigint NOT NULL,
        sha256 text NOT NULL,
        file_name text,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX media_library_account ON media_library (account_id, id DESC)`);
    await q.query(`
      CREATE TABLE media_channel_handles (
        media_id uuid NOT NULL REFERENCES media_library(id) ON DELETE CASCADE,
        channel text NOT NULL,
        connection text NOT NULL,
        handle text,
        expires_at timestamptz,
        uploading_until timestamptz,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (media_id, channel, connection)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE media_channel_handles`);
    await q.query(`DROP TABLE media_library`);
  }
}
