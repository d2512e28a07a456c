import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Sends that fail over to the next channel (docs/failover.md): the attempts of each such message
 * (the first attempt's id is the message's id), and the attempts still to try, each with its work
 * item, kept until the message is carried or fails for good.
 */
export class FailoverAttempts1764300000002 implements MigrationInterface {
  name = 'FailoverAttempts1764300000002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE message_attempts (
        message_id text PRIMARY KEY,
        parent_id text NOT NULL,
        position integer NOT NULL
      )`);
    await q.query(`CREATE INDEX message_attempts_parent ON message_attempts (parent_id, position)`);
    await q.query(`
      CREATE TABLE failover_steps (
        parent_id text NOT NULL,
        position integer NOT NULL,
        step jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (parent_id, position)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE failover_steps`);
    await q.query(`DROP TABLE message_attempts`);
  }
}
