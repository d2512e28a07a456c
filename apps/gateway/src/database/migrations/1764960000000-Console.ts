import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The console (docs/console.md): its users per account, their sessions (ids and invitation tokens
 * stored only as SHA-256), sign-in failures counted for the lock-out, the audit log, and a label
 * on account tokens.
 */
export class Console1764960000000 implements MigrationInterface {
  name = 'Console1764960000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE account_tokens ADD COLUMN label text`);
    await q.query(
      `CREATE INDEX account_tokens_account ON account_tokens (account_id, created_at) WHERE revoked_at IS NULL`,
    );
    await q.query(`
      CREATE TABLE console_users (
        id uuid PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        email text NOT NULL,
        role text NOT NULL CHECK (role IN ('owner', 'manager', 'agent', 'viewer')),
        password_hash text NOT NULL,
        locale text NOT NULL DEFAULT 'en' CHECK (locale IN ('en', 'ru')),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    // An email signs in to one account: sign-in names no account.
    await q.query(`CREATE UNIQUE INDEX console_users_email ON console_users (lower(email))`);
    await q.query(`CREATE INDEX console_users_account ON console_users (account_id, created_at)`);
    await q.query(`
      CREATE TABLE console_sessions (
        id_hash char(64) PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES console_users(id) ON DELETE CASCADE,
        csrf_token text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_seen_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX console_sessions_user ON console_sessions (user_id)`);
    await q.query(`CREATE INDEX console_sessions_last_seen ON console_sessions (last_seen_at)`);
    await q.query(`
      CREATE TABLE console_invitations (
        token_hash char(64) PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        email text NOT NULL,
        role text NOT NULL CHECK (role IN ('owner', 'manager', 'agent', 'viewer')),
        invited_by uuid REFERENCES console_users(id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        accepted_at timestamptz
      )`);
    await q.query(`CREATE INDEX console_invitations_expires ON console_invitations (expires_at)`);
    await q.query(`
      CREATE TABLE console_sign_in_failures (
        key text NOT NULL,
        at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX console_sign_in_failures_key ON console_sign_in_failures (key, at)`);
    await q.query(`CREATE INDEX console_sign_in_failures_at ON console_sign_in_failures (at)`);
    await q.query(`
      CREATE TABLE console_audit (
        id uuid PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        at timestamptz NOT NULL DEFAULT now(),
        user_id uuid,
        user_email text,
        action text NOT NULL,
        target text,
        details jsonb NOT NULL DEFAULT '{}'
      )`);
    await q.query(`CREATE INDEX console_audit_account ON console_audit (account_id, id DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE console_audit`);
    await q.query(`DROP TABLE console_sign_in_failures`);
    await q.query(`DROP TABLE console_invitations`);
    await q.query(`DROP TABLE console_sessions`);
    await q.query(`DROP TABLE console_users`);
    await q.query(`DROP INDEX account_tokens_account`);
    await q.query(`ALTER TABLE account_tokens DROP COLUMN label`);
  }
}
