import { MigrationInterface, QueryRunner } from 'typeorm';

export class HeldDeliveries1764200000000 implements MigrationInterface {
  name = 'HeldDeliveries1764200000000';

  async up(q: QueryRunner): Promise<void> {
    // Events that arrive for a parked endpoint wait here, not in deliveries: one narrow row and one
    // index each, so a dead subscriber costs its tenant's fan-out little while it stays dead. A held
    // row keeps the id and insertion order it will have as a delivery, and moves there (in stream
    // order) once the endpoint answers again, or becomes a FAILED delivery when its time is up.
    await q.query(`
      CREATE TABLE held_deliveries (
        subscription_id uuid NOT NULL REFERENCES subscriptions(id) ON DELETE CASCADE,
        stream_seq bigint NOT NULL,
        id uuid NOT NULL,
        seq bigint NOT NULL,
        event_id text NOT NULL,
        event_type text NOT NULL,
        event_created_at timestamptz NOT NULL,
        payload text NOT NULL,
        order_key text,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (subscription_id, stream_seq)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE held_deliveries`);
  }
}
