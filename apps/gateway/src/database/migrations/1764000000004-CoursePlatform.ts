import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Course platforms: a `course` connection (its base URL, events path, sealed api key and the hash of
 * its inbound secret), the events they call in with (kept 7 days, their body only until processed),
 * the account's rules, the messages sent for events, and the outbox of status events posted back.
 */
export class CoursePlatform1764000000004 implements MigrationInterface {
  name = 'CoursePlatform1764000000004';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE connections DROP CONSTRAINT IF EXISTS connections_channel_check`);
    await q.query(
      `ALTER TABLE connections ADD CONSTRAINT connections_channel_check CHECK (channel IN ('whatsapp', 'telegram', 'max', 'course'))`,
    );
    await q.query(`ALTER TABLE connections ADD COLUMN base_url text, ADD COLUMN events_path text`);
    // An account may connect several course platforms; a send channel stays one per account.
    await q.query(`DROP INDEX connections_account_channel`);
    await q.query(
      `CREATE UNIQUE INDEX connections_account_channel ON connections (account_id, channel) WHERE state <> 'disconnected' AND channel <> 'course'`,
    );
    await q.query(`
      CREATE TABLE course_events (
        id uuid PRIMARY KEY,
        connection_id uuid NOT NULL REFERENCES connections(id) ON DELETE CASCADE,
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        event_key text NOT NULL,
        type text,
        status text NOT NULL CHECK (status IN ('received', 'processed', 'rule_failed', 'ignored')),
        reason text,
        body jsonb,
        message_ids text[] NOT NULL DEFAULT '{}',
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        claimed_until timestamptz,
        received_at timestamptz NOT NULL DEFAULT now(),
        processed_at timestamptz,
        CONSTRAINT course_events_key UNIQUE (connection_id, event_key)
      )`);
    await q.query(`CREATE INDEX course_events_due ON course_events (next_attempt_at) WHERE status = 'received'`);
    await q.query(`CREATE INDEX course_events_account ON course_events (account_id, id DESC)`);
    await q.query(`CREATE INDEX course_events_received_at ON course_events (received_at)`);
    await q.query(`
      CREATE TABLE course_rules (
        id uuid PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        connection_id uuid NOT NULL REFERENCES connections(id) ON DELETE CASCADE,
        event_type text NOT NULL,
        channel text NOT NULL CHECK (channel IN ('whatsapp', 'telegram', 'max')),
        template text NOT NULL,
        language text,
        recipient_field text NOT NULL,
        params jsonb NOT NULL DEFAULT '[]',
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX course_rules_match ON course_rules (connection_id, event_type)`);
    await q.query(`CREATE INDEX course_rules_account ON course_rules (account_id, created_at DESC)`);
    await q.query(`
      CREATE TABLE course_messages (
        message_id text PRIMARY KEY,
        connection_id uuid NOT NULL REFERENCES connections(id) ON DELETE CASCADE,
        course_event_id uuid NOT NULL,
        event_id text NOT NULL,
        student text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX course_messages_created_at ON course_messages (created_at)`);
    await q.query(`
      CREATE TABLE course_outbox (
        id bigserial PRIMARY KEY,
        connection_id uuid NOT NULL REFERENCES connections(id) ON DELETE CASCADE,
        student text NOT NULL,
        message_id text NOT NULL,
        status text NOT NULL,
        rank smallint NOT NULL,
        body text NOT NULL,
        state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'abandoned')),
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        claimed_until timestamptz,
        last_error text,
        created_at timestamptz NOT NULL DEFAULT now(),
        done_at timestamptz,
        CONSTRAINT course_outbox_step UNIQUE (message_id, status)
      )`);
    // The head of each student's queue: the oldest pending event of the (connection, student).
    await q.query(
      `CREATE INDEX course_outbox_pending ON course_outbox (connection_id, student, id) WHERE state = 'pending'`,
    );
    await q.query(`CREATE INDEX course_outbox_created_at ON course_outbox (created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE course_outbox`);
    await q.query(`DROP TABLE course_messages`);
    await q.query(`DROP TABLE course_rules`);
    await q.query(`DROP TABLE course_events`);
    await q.query(`DELETE FROM connections WHERE channel = 'course'`);
    await q.query(`DROP INDEX connections_account_channel`);
    await q.query(
      `CREATE UNIQUE INDEX connections_account_channel ON connections (account_id, channel) WHERE state <> 'disconnected'`,
    );
    await q.query(`ALTER TABLE connections DROP COLUMN base_url, DROP COLUMN events_path`);
    await q.query(`ALTER TABLE connections DROP CONSTRAINT connections_channel_check`);
    await q.query(
      `ALTER TABLE connections ADD CONSTRAINT connections_channel_check CHECK (channel IN ('whatsapp', 'telegram', 'max'))`,
    );
  }
}
