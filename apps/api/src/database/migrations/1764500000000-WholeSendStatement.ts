import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A guard for statements that must not commit in some case they can only see while running: it
 * aborts the statement with SQLSTATE 40001 (`serialization_failure`, the usual "try again another
 * way"), the message naming why. A send group recorded in one statement uses it when the balance
 * or a tier counter does not allow the whole group, or a recipient is not where the statement
 * first saw it: nothing is written, and the group is decided send by send (docs/api-sending.md).
 */
export class WholeSendStatement1764500000000 implements MigrationInterface {
  name = 'WholeSendStatement1764500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION abort_unless(ok boolean, what text) RETURNS boolean LANGUAGE plpgsql AS $$
      BEGIN
        IF NOT ok THEN
          RAISE EXCEPTION USING ERRCODE = '40001', MESSAGE = what;
        END IF;
        RETURN true;
      END
      $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION abort_unless(boolean, text)`);
  }
}
