import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The conversation list's filters each read an index in the list's order (docs/conversations.md,
 * Paging): a page of a rare status, assignee, channel, label or of the unread ones reads its 50
 * rows, not every conversation of the account before them. Built concurrently (outside a
 * transaction), so a large table keeps taking messages while they build; IF NOT EXISTS makes a
 * build interrupted and run again finish the others (an invalid one left behind is dropped first).
 */
export class ConversationFilterIndexes1765100000000 implements MigrationInterface {
  name = 'ConversationFilterIndexes1765100000000';
  transaction = false;

  private readonly indexes: Record<string, string> = {
    conversations_list_status: `(account_id, status, updated_at DESC, id DESC)`,
    conversations_list_assignee: `(account_id, assignee, updated_at DESC, id DESC) WHERE assignee IS NOT NULL`,
    conversations_list_channel: `(account_id, channel, updated_at DESC, id DESC)`,
    conversations_list_unread: `(account_id, updated_at DESC, id DESC) WHERE unread_count > 0`,
    conversations_labels: `USING gin (labels)`,
  };

  async up(q: QueryRunner): Promise<void> {
    for (const [name, definition] of Object.entries(this.indexes)) {
      const [invalid] = (await q.query(
        `SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
          WHERE c.relname = $1 AND c.relnamespace = current_schema()::regnamespace AND NOT i.indisvalid`,
        [name],
      )) as unknown[];
      if (invalid) await q.query(`DROP INDEX CONCURRENTLY ${name}`);
      await q.query(`CREATE INDEX CONCURRENTLY IF NOT EXISTS ${name} ON conversations ${definition}`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const name of Object.keys(this.indexes).reverse()) await q.query(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
  }
}
