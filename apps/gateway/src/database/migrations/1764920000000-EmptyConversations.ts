import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A conversation is made in the transaction of its first message (docs/conversations.md); one made
 * before that, whose message never came, would be listed without any: such empty conversations go.
 */
export class EmptyConversations1764920000000 implements MigrationInterface {
  name = 'EmptyConversations1764920000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      DELETE FROM conversations c
       WHERE NOT EXISTS (SELECT 1 FROM conversation_messages m WHERE m.conversation_id = c.id)`);
  }

  async down(): Promise<void> {
    // Nothing to restore: an empty conversation held nothing.
  }
}
