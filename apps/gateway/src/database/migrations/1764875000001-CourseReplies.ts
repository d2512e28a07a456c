import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Course platforms hearing back (docs/course.md, Waiting for the reply; Starting an event from a
 * message): a rule's `wait_for_reply`, the waits of the messages sent for such rules (a durable
 * timer: `due_at`, swept by the posting worker), and each course connection's triggers.
 */
export class CourseReplies1764875000001 implements MigrationInterface {
  name = 'CourseReplies1764875000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE course_rules ADD COLUMN wait_for_reply_seconds integer`);
    await q.query(`
      CREATE TABLE course_waits (
        message_id text PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        connection_id uuid NOT NULL REFERENCES connections(id) ON DELETE CASCADE,
        channel text NOT NULL,
        student text NOT NULL,
        event_id text NOT NULL,
        state text NOT NULL DEFAULT 'waiting' CHECK (state IN ('waiting', 'replied', 'no_reply')),
        reply_provider_id text,
        due_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL,
        done_at timestamptz
      )`);
    // An inbound message looks for its sender's waits (open, or answered by it): by the address first.
    await q.query(`CREATE INDEX course_waits_student ON course_waits (student, channel)`);
    await q.query(`CREATE INDEX course_waits_due ON course_waits (due_at) WHERE state = 'waiting'`);
    await q.query(`CREATE INDEX course_waits_created_at ON course_waits (created_at)`);
    await q.query(`
      CREATE TABLE course_triggers (
        connection_id uuid PRIMARY KEY REFERENCES connections(id) ON DELETE CASCADE,
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        keyword_triggers jsonb NOT NULL DEFAULT '[]',
        on_message text,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX course_triggers_account ON course_triggers (account_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE course_triggers`);
    await q.query(`DROP TABLE course_waits`);
    await q.query(`ALTER TABLE course_rules DROP COLUMN wait_for_reply_seconds`);
  }
}
