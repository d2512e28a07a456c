import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The usage report's counters: one row per user, hour of acceptance (UTC), channel and category,
 * incremented in the same statement as each state change it counts, so the report never scans messages.
 */
export class UsageHourly1764000000003 implements MigrationInterface {
  name = 'UsageHourly1764000000003';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE usage_hourly (
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        hour timestamptz NOT NULL CHECK (hour = date_trunc('hour', hour, 'UTC')),
        channel text NOT NULL,
        category text NOT NULL,
        queued bigint NOT NULL DEFAULT 0,
        sent bigint NOT NULL DEFAULT 0,
        delivered bigint NOT NULL DEFAULT 0,
        read bigint NOT NULL DEFAULT 0,
        failed bigint NOT NULL DEFAULT 0,
        cost numeric(20,4) NOT NULL DEFAULT 0,
        PRIMARY KEY (user_id, hour, channel, category)
      )`);
    // Messages accepted before the counters existed: counted from the status each has reached.
    await q.query(`
      INSERT INTO usage_hourly (user_id, hour, channel, category, queued, sent, delivered, read, failed, cost)
      SELECT m.user_id, date_trunc('hour', m.created_at, 'UTC'), m.channel, m.category, count(*),
             count(*) FILTER (WHERE m.status IN ('SENT', 'DELIVERED', 'READ')),
             count(*) FILTER (WHERE m.status IN ('DELIVERED', 'READ')),
             count(*) FILTER (WHERE m.status = 'READ'),
             count(*) FILTER (WHERE m.status = 'FAILED'),
             coalesce(sum(h.amount) FILTER (WHERE h.status = 'CAPTURED'), 0)
      FROM messages m LEFT JOIN holds h ON h.message_id = m.id
      GROUP BY 1, 2, 3, 4`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE usage_hourly`);
  }
}
