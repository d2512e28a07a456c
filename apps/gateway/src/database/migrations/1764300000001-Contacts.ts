import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Contacts of gateway accounts (docs/contacts.md): a person's identities on each channel, time
 * zone, language, attributes and lists, and the bulk imports that create and update them.
 */
export class Contacts1764300000001 implements MigrationInterface {
  name = 'Contacts1764300000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE accounts ADD COLUMN time_zone text NOT NULL DEFAULT 'UTC'`);
    await q.query(`
      CREATE TABLE contacts (
        id uuid PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        external_id text,
        name text,
        whatsapp text,
        telegram text,
        max text,
        time_zone text,
        language text,
        attributes jsonb NOT NULL DEFAULT '{}',
        lists text[] NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // One contact per external id and per identity of an account: imports upsert by them.
    await q.query(
      `CREATE UNIQUE INDEX contacts_external_id ON contacts (account_id, external_id) WHERE external_id IS NOT NULL`,
    );
    for (const channel of ['whatsapp', 'telegram', 'max']) {
      await q.query(
        `CREATE UNIQUE INDEX contacts_${channel} ON contacts (account_id, ${channel}) WHERE ${channel} IS NOT NULL`,
      );
    }
    await q.query(`CREATE INDEX contacts_account_page ON contacts (account_id, id)`);
    await q.query(`CREATE INDEX contacts_lists ON contacts USING gin (lists)`);
    await q.query(`
      CREATE TABLE contact_imports (
        id uuid PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        format text NOT NULL CHECK (format IN ('csv', 'ndjson')),
        state text NOT NULL CHECK (state IN ('receiving', 'processing', 'completed', 'failed')),
        rows_read integer NOT NULL DEFAULT 0,
        created integer NOT NULL DEFAULT 0,
        updated integer NOT NULL DEFAULT 0,
        unchanged integer NOT NULL DEFAULT 0,
        rejected integer NOT NULL DEFAULT 0,
        consent_refused integer NOT NULL DEFAULT 0,
        failure text,
        created_at timestamptz NOT NULL DEFAULT now(),
        heartbeat_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz
      )`);
    await q.query(`
      CREATE TABLE contact_import_rejections (
        import_id uuid NOT NULL REFERENCES contact_imports(id) ON DELETE CASCADE,
        row_number integer NOT NULL,
        field text NOT NULL,
        reason text NOT NULL,
        PRIMARY KEY (import_id, row_number, field)
      )`);
    await q.query(`CREATE INDEX contact_imports_account ON contact_imports (account_id, id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE contact_import_rejections`);
    await q.query(`DROP TABLE contact_imports`);
    await q.query(`DROP TABLE contacts`);
    await q.query(`ALTER TABLE accounts DROP COLUMN time_zone`);
  }
}
