import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The content of a send over a failover route, kept from its acceptance until its first status
 * records it in the thread of the channel the api chose (docs/conversations.md); what no status
 * takes is removed by the content-retention purge.
 */
export class OutboundContents1764920000001 implements MigrationInterface {
  name = 'OutboundContents1764920000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE outbound_contents (
        message_id uuid PRIMARY KEY,
        account_id uuid NOT NULL,
        content jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX outbound_contents_created ON outbound_contents (created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE outbound_contents`);
  }
}
