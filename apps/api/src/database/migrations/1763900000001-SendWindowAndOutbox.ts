import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The send path at volume: the messaging tier's rolling 24-hour recipients kept incrementally
 * (one row per app and recipient, one counter per app) instead of aggregated from messages on
 * every send, and the outbox that closes the gap between a send's commit and its publish.
 */
export class SendWindowAndOutbox1763900000001 implements MigrationInterface {
  name = 'SendWindowAndOutbox1763900000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE tier_recipients (
        app_id integer NOT NULL,
        recipient text NOT NULL,
        first_sent_at timestamptz NOT NULL,
        last_sent_at timestamptz NOT NULL,
        PRIMARY KEY (app_id, recipient)
      )`);
    await q.query(`CREATE INDEX tier_recipients_expiry_idx ON tier_recipients (app_id, last_sent_at)`);
    // Rows of tier_recipients per app, live or not yet swept: an upper bound of the live count.
    await q.query(`
      CREATE TABLE tier_usage (
        app_id integer PRIMARY KEY,
        recipients integer NOT NULL CHECK (recipients >= 0)
      )`);
    await q.query(`
      INSERT INTO tier_recipients (app_id, recipient, first_sent_at, last_sent_at)
      SELECT app_id, recipient, min(created_at), max(created_at) FROM messages
      WHERE kind = 'TEMPLATE' AND status <> 'FAILED' AND created_at > now() - interval '24 hours'
      GROUP BY app_id, recipient`);
    await q.query(
      `INSERT INTO tier_usage (app_id, recipients) SELECT app_id, count(*) FROM tier_recipients GROUP BY app_id`,
    );
    // Publishes a committed send (or event) still owes JetStream; id = its Nats-Msg-Id.
    await q.query(`
      CREATE TABLE outbox (
        id text PRIMARY KEY,
        subject text NOT NULL,
        payload jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX outbox_created_idx ON outbox (created_at)`);
    // Messages waiting for a final status, oldest first (the receipt reconciler).
    await q.query(`CREATE INDEX messages_open_idx ON messages (created_at) WHERE status IN ('QUEUED', 'SENT')`);
    // The old tier count aggregated template messages per send; nothing reads that index now.
    await q.query(`DROP INDEX IF EXISTS messages_tier_idx`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX messages_tier_idx ON messages (app_id, created_at) WHERE kind = 'TEMPLATE'`);
    await q.query(`DROP INDEX messages_open_idx`);
    await q.query(`DROP TABLE outbox`);
    await q.query(`DROP TABLE tier_usage`);
    await q.query(`DROP TABLE tier_recipients`);
  }
}
