import { MigrationInterface, QueryRunner } from 'typeorm';

export class LeaseIndex1764100000000 implements MigrationInterface {
  name = 'LeaseIndex1764100000000';

  async up(q: QueryRunner): Promise<void> {
    // Deliveries held by a dispatcher right now, by subscription and lease end: counting one
    // subscription's unexpired leases is a range scan that skips leases which ended, instead of
    // every entry the index has gathered since the last vacuum.
    await q.query(
      `CREATE INDEX deliveries_lease_idx ON deliveries (subscription_id, locked_until)
        WHERE status = 'PENDING' AND locked_until IS NOT NULL`,
    );
    await q.query(`DROP INDEX deliveries_locked_idx`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX deliveries_locked_idx ON deliveries (subscription_id) WHERE status = 'PENDING' AND locked_until IS NOT NULL`,
    );
    await q.query(`DROP INDEX deliveries_lease_idx`);
  }
}
