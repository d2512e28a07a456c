import { MigrationInterface, QueryRunner } from 'typeorm';

export class ParkedEndpointsAndSealedSecrets1763950000001 implements MigrationInterface {
  name = 'ParkedEndpointsAndSealedSecrets1763950000001';

  async up(q: QueryRunner): Promise<void> {
    // A failing endpoint is parked until its next probe; probe_index is its step in the schedule.
    // window_open: the endpoint's last attempt succeeded, so it gets its whole window; until then
    // (new, changed or failing endpoints) one attempt at a time, so an endpoint that hangs from
    // the start holds one slot, not a window of them.
    // secret_key_id names the key that sealed secret and previous_secret (null: still in clear,
    // sealed by the service's housekeeping).
    await q.query(`
      ALTER TABLE subscriptions
        ADD COLUMN parked_until timestamptz,
        ADD COLUMN probe_index integer NOT NULL DEFAULT 0,
        ADD COLUMN window_open boolean NOT NULL DEFAULT false,
        ADD COLUMN secret_key_id text`);
    // Deliveries with the same order key (one message's events) go out one after another.
    await q.query(`ALTER TABLE deliveries ADD COLUMN order_key text`);
    await q.query(
      `CREATE INDEX deliveries_order_idx ON deliveries (subscription_id, order_key, stream_seq, seq)
        WHERE status = 'PENDING' AND order_key IS NOT NULL`,
    );
    // The dispatcher asks per subscription for its earliest due delivery.
    await q.query(`DROP INDEX deliveries_due_idx`);
    await q.query(
      `CREATE INDEX deliveries_sub_due_idx ON deliveries (subscription_id, next_attempt_at) WHERE status = 'PENDING'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX deliveries_sub_due_idx`);
    await q.query(`CREATE INDEX deliveries_due_idx ON deliveries (next_attempt_at) WHERE status = 'PENDING'`);
    await q.query(`DROP INDEX deliveries_order_idx`);
    await q.query(`ALTER TABLE deliveries DROP COLUMN order_key`);
    await q.query(
      `ALTER TABLE subscriptions DROP COLUMN parked_until, DROP COLUMN probe_index, DROP COLUMN window_open, DROP COLUMN secret_key_id`,
    );
  }
}
