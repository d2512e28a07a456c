import { MigrationInterface, QueryRunner } from 'typeorm';

export class Connections1763960000000 implements MigrationInterface {
  name = 'Connections1763960000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE connections (
        id uuid PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        channel text NOT NULL CHECK (channel IN ('whatsapp', 'telegram', 'max')),
        state text NOT NULL CHECK (state IN ('active', 'failing', 'disconnected')),
        app_id integer,
        bot_id text,
        bot_username text,
        credential text,
        inbound_secret_hash char(64),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // One live connection per channel and account (a send names only the channel), and a bot or an
    // app connected once at a time (a second connection would take over its webhook).
    await q.query(
      `CREATE UNIQUE INDEX connections_account_channel ON connections (account_id, channel) WHERE state <> 'disconnected'`,
    );
    await q.query(
      `CREATE UNIQUE INDEX connections_bot ON connections (channel, bot_id) WHERE state <> 'disconnected' AND bot_id IS NOT NULL`,
    );
    await q.query(
      `CREATE UNIQUE INDEX connections_app ON connections (app_id) WHERE state <> 'disconnected' AND app_id IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE connections`);
  }
}
