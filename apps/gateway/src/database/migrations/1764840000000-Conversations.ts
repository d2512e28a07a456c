import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Conversations (docs/conversations.md): one thread per (account, connection, contact), with every
 * message in and out of it. A repeated inbound update collapses on (conversation, direction,
 * provider id), a repeated outbound status on our message id.
 */
export class Conversations1764840000000 implements MigrationInterface {
  name = 'Conversations1764840000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE conversations (
        id uuid PRIMARY KEY,
        account_id uuid NOT NULL,
        connection_id uuid NOT NULL,
        channel text NOT NULL,
        contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
        address text NOT NULL,
        status text NOT NULL DEFAULT 'open',
        assignee text,
        labels text[] NOT NULL DEFAULT '{}',
        version integer NOT NULL DEFAULT 1,
        unread_count integer NOT NULL DEFAULT 0,
        last_message_at timestamptz,
        last_inbound_at timestamptz,
        last_inbound_provider_id text,
        sender text,
        last_message jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX conversations_thread ON conversations (account_id, connection_id, contact_id)`);
    await q.query(`CREATE INDEX conversations_list ON conversations (account_id, updated_at DESC, id DESC)`);
    await q.query(`
      CREATE TABLE conversation_messages (
        id uuid PRIMARY KEY,
        conversation_id uuid NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
        account_id uuid NOT NULL,
        direction text NOT NULL,
        provider_message_id text,
        message_id uuid,
        status text NOT NULL,
        content jsonb NOT NULL,
        channel_timestamp timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE UNIQUE INDEX conversation_messages_inbound ON conversation_messages
         (conversation_id, direction, provider_message_id) WHERE direction = 'in'`,
    );
    await q.query(
      `CREATE UNIQUE INDEX conversation_messages_outbound ON conversation_messages (message_id)
         WHERE message_id IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX conversation_messages_order ON conversation_messages (conversation_id, channel_timestamp, id)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE conversation_messages`);
    await q.query(`DROP TABLE conversations`);
  }
}
