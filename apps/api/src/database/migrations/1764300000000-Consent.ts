import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Consent per business and channel address (docs/consent.md): the current state of each purpose,
 * the history of every change, and each business's settings. Addresses are stored only as a keyed
 * hash, so an opt-out outlives the erasure of the contact that carried it.
 */
export class Consent1764300000000 implements MigrationInterface {
  name = 'Consent1764300000000';

  async up(q: QueryRunner): Promise<void> {
    // One row per address and purpose that is not `unknown`; the send path's one indexed lookup.
    await q.query(`
      CREATE TABLE consents (
        user_id uuid NOT NULL,
        channel text NOT NULL,
        address_key text NOT NULL,
        purpose text NOT NULL CHECK (purpose IN ('marketing', 'all')),
        state text NOT NULL CHECK (state IN ('opted_in', 'opted_out')),
        source text NOT NULL,
        since timestamptz NOT NULL,
        PRIMARY KEY (user_id, channel, address_key, purpose)
      )`);
    await q.query(`
      CREATE TABLE consent_history (
        id bigserial PRIMARY KEY,
        user_id uuid NOT NULL,
        channel text NOT NULL,
        address_key text NOT NULL,
        purpose text NOT NULL,
        state text NOT NULL,
        source text NOT NULL,
        evidence text,
        occurred_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE INDEX consent_history_address_idx ON consent_history (user_id, channel, address_key, id DESC)`,
    );
    await q.query(`
      CREATE TABLE consent_settings (
        user_id uuid PRIMARY KEY,
        marketing_requires_opt_in boolean NOT NULL DEFAULT false,
        opt_out_keywords text[],
        opt_in_keywords text[],
        opt_out_reply text,
        opt_in_reply text,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE consent_settings`);
    await q.query(`DROP TABLE consent_history`);
    await q.query(`DROP TABLE consents`);
  }
}
