import { MigrationInterface, QueryRunner } from 'typeorm';

export class MessageStatusRanks1764400000000 implements MigrationInterface {
  name = 'MessageStatusRanks1764400000000';

  async up(q: QueryRunner): Promise<void> {
    // The rank of the furthest status of each message fanned out so far (SENT 1, DELIVERED 2, READ
    // and FAILED 3): a status event that does not rank above it is not fanned out, so subscribers
    // see a message's statuses move forward only, whatever order they reach the stream in.
    await q.query(`
      CREATE TABLE message_status_ranks (
        user_id uuid NOT NULL,
        message_id text NOT NULL,
        rank smallint NOT NULL,
        PRIMARY KEY (user_id, message_id)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE message_status_ranks`);
  }
}
