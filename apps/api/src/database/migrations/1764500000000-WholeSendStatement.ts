import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A guard for statements that must not commit in some case they can only see while running: it
 * aborts the statement with SQLSTATE 40001 (`serialization_failure`, the usual "try again another
 * way"), the message naming what changed. A send group recorded in one statement uses it when a
 * recipient it read as inside the tier window is no longer there (docs/architecture.md).
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
