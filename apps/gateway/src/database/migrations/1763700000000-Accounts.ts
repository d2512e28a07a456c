import { MigrationInterface, QueryRunner } from 'typeorm';

export class Accounts1763700000000 implements MigrationInterface {
  name = 'Accounts1763700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE accounts (
        id uuid PRIMARY KEY,
        name text NOT NULL,
        user_id uuid,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE account_tokens (
        id uuid PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        token_hash char(64) NOT NULL UNIQUE,
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE account_tokens`);
    await q.query(`DROP TABLE accounts`);
  }
}
