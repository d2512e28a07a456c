import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tracked links of campaigns (docs/campaigns.md#tracked-links): each short link's opaque token
 * with the campaign's recipient and the URL it redirects to, and each recipient's first click by a
 * person (one row per recipient: a second click changes nothing).
 */
export class TrackedLinks1764830000000 implements MigrationInterface {
  name = 'TrackedLinks1764830000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE tracked_links (
        token text PRIMARY KEY,
        account_id uuid NOT NULL,
        campaign_id uuid NOT NULL,
        seq integer NOT NULL,
        contact_id text NOT NULL,
        variant smallint,
        url text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX tracked_links_campaign ON tracked_links (campaign_id, seq)`);
    await q.query(`
      CREATE TABLE link_clicks (
        campaign_id uuid NOT NULL,
        seq integer NOT NULL,
        account_id uuid NOT NULL,
        contact_id text NOT NULL,
        variant smallint,
        message_id text NOT NULL,
        clicked_at timestamptz NOT NULL,
        PRIMARY KEY (campaign_id, seq)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE link_clicks`);
    await q.query(`DROP TABLE tracked_links`);
  }
}
