import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Live account signals from the channel: the exact recipient cap of a tier that has no label of
 * its own, and a restriction of business-initiated messaging (marketing pauses while it lasts).
 */
export class AppSignals1764000000001 implements MigrationInterface {
  name = 'AppSignals1764000000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE apps ADD COLUMN message_cap integer CHECK (message_cap > 0)`);
    await q.query(`ALTER TABLE apps ADD COLUMN restricted boolean NOT NULL DEFAULT false`);
    await q.query(`ALTER TABLE apps ADD COLUMN restricted_until timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE apps DROP COLUMN restricted_until`);
    await q.query(`ALTER TABLE apps DROP COLUMN restricted`);
    await q.query(`ALTER TABLE apps DROP COLUMN message_cap`);
  }
}
