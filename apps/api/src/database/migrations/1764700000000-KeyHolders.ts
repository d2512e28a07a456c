import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An Idempotency-Key in progress names the request holding it (`holder`, a token drawn by each
 * claim and takeover) and, once that request's send committed, its message (`message_id`, written
 * by the send's own statement while it holds the key row). A request that lost its key to a
 * takeover cannot commit under it, and a key whose send committed is never given up
 * (docs/decisions.md, "A key in progress is a lease"). A key claimed before has neither: a retry
 * takes it over and answers what its send committed, as before.
 */
export class KeyHolders1764700000000 implements MigrationInterface {
  name = 'KeyHolders1764700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE idempotency_keys ADD COLUMN holder uuid, ADD COLUMN message_id text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE idempotency_keys DROP COLUMN holder, DROP COLUMN message_id`);
  }
}
