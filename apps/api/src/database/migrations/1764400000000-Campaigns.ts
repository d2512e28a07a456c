import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Campaigns (docs/campaigns.md): each campaign with its definition, state and money, and its
 * recipients in audience order, each with its route, its due time and, once sent, its message.
 * Every message of a campaign (each attempt of a failover route too) names it.
 */
export class Campaigns1764400000000 implements MigrationInterface {
  name = 'Campaigns1764400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE campaigns (
        id uuid PRIMARY KEY,
        user_id uuid NOT NULL,
        account_id uuid NOT NULL,
        name text NOT NULL,
        definition jsonb NOT NULL,
        state text NOT NULL DEFAULT 'draft',
        pause_reason text,
        pause_detail text,
        template_app_id integer,
        recipients integer NOT NULL DEFAULT 0,
        committed numeric(20,4) NOT NULL DEFAULT 0,
        last_tick_at timestamptz,
        whatsapp_wait_until timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        launched_at timestamptz,
        started_at timestamptz,
        completed_at timestamptz
      )`);
    await q.query(`CREATE INDEX campaigns_account ON campaigns (account_id, id)`);
    // The runner's look for work: only campaigns that may still send.
    await q.query(`CREATE INDEX campaigns_live ON campaigns (state) WHERE state IN ('scheduled', 'running')`);
    await q.query(`
      CREATE TABLE campaign_recipients (
        campaign_id uuid NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
        seq integer NOT NULL,
        contact_id text NOT NULL,
        external_id text,
        time_zone text NOT NULL,
        route jsonb NOT NULL,
        first_channel text,
        params jsonb NOT NULL,
        state text NOT NULL,
        skip_reason text,
        message_id text,
        channel text,
        next_at timestamptz NOT NULL DEFAULT now(),
        claimed_until timestamptz,
        queued_at timestamptz,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (campaign_id, seq)
      )`);
    await q.query(`
      CREATE INDEX campaign_recipients_due ON campaign_recipients (campaign_id, first_channel, next_at, seq)
      WHERE state = 'pending'`);
    await q.query(
      `CREATE INDEX campaign_recipients_queued ON campaign_recipients (campaign_id, queued_at) WHERE state = 'queued'`,
    );
    await q.query(`ALTER TABLE messages ADD COLUMN campaign_id uuid`);
    await q.query(`CREATE INDEX messages_campaign ON messages (campaign_id) WHERE campaign_id IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX messages_campaign`);
    await q.query(`ALTER TABLE messages DROP COLUMN campaign_id`);
    await q.query(`DROP TABLE campaign_recipients`);
    await q.query(`DROP TABLE campaigns`);
  }
}
