import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The holds still outstanding (not yet captured or released: `settled_at` unset), by currency, for
 * the billing gauges, replacing the index of HELD holds by user. Settlements find their holds by
 * message id; with an index whose predicate was theirs too (`status = 'HELD'`), PostgreSQL took it
 * whenever its statistics said few holds were open (an ANALYZE at a quiet moment), and each
 * settlement then read every open hold of every user to find its few. Built in the migration's
 * transaction, as every index here (not concurrently: a build that waits for older snapshots would
 * wait for the other migration runs queued on the migrations' lock).
 */
export class OutstandingHoldsIndex1764600000000 implements MigrationInterface {
  name = 'OutstandingHoldsIndex1764600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX holds_outstanding_idx ON holds (currency) INCLUDE (amount) WHERE settled_at IS NULL`);
    await q.query(`DROP INDEX holds_user_held_idx`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX holds_user_held_idx ON holds (user_id) WHERE status = 'HELD'`);
    await q.query(`DROP INDEX holds_outstanding_idx`);
  }
}
