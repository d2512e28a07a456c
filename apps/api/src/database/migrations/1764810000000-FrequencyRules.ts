import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Frequency rules of marketing campaigns (docs/campaigns.md#frequency-rules): each account's
 * settings, and one row per marketing campaign message (its contact, template and when): reserved
 * under the contact's lock before the send, marked sent in the send's own transaction, removed
 * when the send did not happen; a reserved row counts like a sent one.
 */
export class FrequencyRules1764810000000 implements MigrationInterface {
  name = 'FrequencyRules1764810000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE campaign_settings (
        user_id uuid PRIMARY KEY,
        frequency_cap_messages integer,
        frequency_cap_hours integer,
        recent_template_days integer,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE campaign_contact_sends (
        campaign_id uuid NOT NULL,
        seq integer NOT NULL,
        user_id uuid NOT NULL,
        contact_id text NOT NULL,
        template text NOT NULL,
        sent_at timestamptz NOT NULL,
        sent boolean NOT NULL DEFAULT false,
        PRIMARY KEY (campaign_id, seq)
      )`);
    await q.query(
      `CREATE INDEX campaign_contact_sends_contact ON campaign_contact_sends (user_id, contact_id, sent_at)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE campaign_contact_sends`);
    await q.query(`DROP TABLE campaign_settings`);
  }
}
