import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Sending and billing: message metadata (never the content), the status timeline, balance holds,
 * the 24-hour conversation windows, stored Idempotency-Key answers and the per-token rate buckets.
 */
export class MessagesAndHolds1763740000000 implements MigrationInterface {
  name = 'MessagesAndHolds1763740000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE messages (
        id text PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        app_id integer NOT NULL,
        channel text NOT NULL,
        recipient text NOT NULL,
        kind text NOT NULL,
        category text NOT NULL,
        priority text NOT NULL CHECK (priority IN ('service', 'marketing')),
        template_id integer,
        status text NOT NULL CHECK (status IN ('QUEUED', 'SENT', 'DELIVERED', 'READ', 'FAILED')),
        provider_message_id text,
        price numeric(20,4) NOT NULL CHECK (price >= 0),
        currency char(3) NOT NULL,
        idempotency_key text,
        request_hash char(64),
        failure_code text,
        failure_reason text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE INDEX messages_provider_idx ON messages (provider_message_id) WHERE provider_message_id IS NOT NULL`,
    );
    // The messaging-tier count: template sends of one app in the last 24 hours.
    await q.query(`CREATE INDEX messages_tier_idx ON messages (app_id, created_at) WHERE kind = 'TEMPLATE'`);
    await q.query(`CREATE INDEX messages_user_time_idx ON messages (user_id, created_at)`);
    await q.query(`
      CREATE TABLE message_events (
        message_id text NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
        status text NOT NULL,
        occurred_at bigint NOT NULL,
        recorded_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (message_id, status)
      )`);
    await q.query(`
      CREATE TABLE holds (
        message_id text PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE,
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        amount numeric(20,4) NOT NULL CHECK (amount >= 0),
        currency char(3) NOT NULL,
        status text NOT NULL CHECK (status IN ('HELD', 'CAPTURED', 'RELEASED')),
        created_at timestamptz NOT NULL DEFAULT now(),
        settled_at timestamptz
      )`);
    await q.query(`CREATE INDEX holds_user_held_idx ON holds (user_id) WHERE status = 'HELD'`);
    await q.query(`
      CREATE TABLE conversation_windows (
        app_id integer NOT NULL,
        recipient text NOT NULL,
        last_inbound_at timestamptz NOT NULL,
        PRIMARY KEY (app_id, recipient)
      )`);
    await q.query(`
      CREATE TABLE idempotency_keys (
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        key text NOT NULL,
        request_hash char(64) NOT NULL,
        state text NOT NULL CHECK (state IN ('PENDING', 'COMPLETED')),
        response_status integer,
        response_body jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (user_id, key)
      )`);
    // Rate-limit buckets are disposable (a crash refills them): unlogged, so updates skip the WAL.
    await q.query(`
      CREATE UNLOGGED TABLE rate_limits (
        key text PRIMARY KEY,
        tokens double precision NOT NULL,
        allowed boolean NOT NULL,
        refilled_at timestamptz NOT NULL
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE rate_limits`);
    await q.query(`DROP TABLE idempotency_keys`);
    await q.query(`DROP TABLE conversation_windows`);
    await q.query(`DROP TABLE holds`);
    await q.query(`DROP TABLE message_events`);
    await q.query(`DROP TABLE messages`);
  }
}
