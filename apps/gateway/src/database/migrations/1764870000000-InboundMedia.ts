import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Inbound media (docs/conversations.md, Media): what became of the file of each conversation
 * message a customer sent: stored in the media store (the object named by the message id), too
 * large for its channel's cap, or failed. No row yet: still pending.
 */
export class InboundMedia1764870000000 implements MigrationInterface {
  name = 'InboundMedia1764870000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE inbound_media (
        message_id uuid PRIMARY KEY REFERENCES conversation_messages(id) ON DELETE CASCADE,
        account_id uuid NOT NULL,
        status text NOT NULL CHECK (status IN ('stored', 'too_large', 'failed')),
        mime_type text,
        size bigint,
        file_name text,
        reason text,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE inbound_media`);
  }
}
