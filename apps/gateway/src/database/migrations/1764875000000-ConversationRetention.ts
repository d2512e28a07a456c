import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Content retention of conversations (docs/conversations.md, Content retention): each account's
 * `content_retention` in days (no row: the default), and when a message's content was purged. The
 * purge walks each account's unpurged messages by age.
 */
export class ConversationRetention1764875000000 implements MigrationInterface {
  name = 'ConversationRetention1764875000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE conversation_settings (
        account_id uuid PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
        content_retention_days integer NOT NULL CHECK (content_retention_days BETWEEN 0 AND 3650),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`ALTER TABLE conversation_messages ADD COLUMN content_purged_at timestamptz`);
    await q.query(
      `CREATE INDEX conversation_messages_unpurged ON conversation_messages (account_id, created_at)
         WHERE content_purged_at IS NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX conversation_messages_unpurged`);
    await q.query(`ALTER TABLE conversation_messages DROP COLUMN content_purged_at`);
    await q.query(`DROP TABLE conversation_settings`);
  }
}
