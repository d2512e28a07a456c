import { MigrationInterface, QueryRunner } from 'typeorm';

export class Initial1763700000000 implements MigrationInterface {
  name = 'Initial1763700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE users (
        id uuid PRIMARY KEY,
        name text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('system', 'user')),
        currency char(3) NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE api_tokens (
        id uuid PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        token_hash char(64) NOT NULL UNIQUE,
        label text,
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz
      )`);
    await q.query(`CREATE INDEX api_tokens_user_idx ON api_tokens (user_id)`);
    await q.query(`
      CREATE TABLE balances (
        user_id uuid PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
        currency char(3) NOT NULL,
        available numeric(20,4) NOT NULL DEFAULT 0 CHECK (available >= 0),
        held numeric(20,4) NOT NULL DEFAULT 0 CHECK (held >= 0),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE transactions (
        id uuid PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        app_id integer,
        amount numeric(20,4) NOT NULL,
        currency char(3) NOT NULL,
        status text NOT NULL,
        category text,
        recipient_phone text,
        message_id text,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX transactions_user_time_idx ON transactions (user_id, created_at)`);
    await q.query(
      `CREATE UNIQUE INDEX transactions_message_uq ON transactions (message_id) WHERE message_id IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE transactions`);
    await q.query(`DROP TABLE balances`);
    await q.query(`DROP TABLE api_tokens`);
    await q.query(`DROP TABLE users`);
  }
}
