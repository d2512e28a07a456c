import { MigrationInterface, QueryRunner } from 'typeorm';

export class DeliveryTraceparent1764300000000 implements MigrationInterface {
  name = 'DeliveryTraceparent1764300000000';

  async up(q: QueryRunner): Promise<void> {
    // The W3C trace context of the event a delivery came from (tracing on; null otherwise), so
    // each attempt is a span of the message's trace however much later it runs.
    await q.query(`ALTER TABLE deliveries ADD COLUMN traceparent text`);
    await q.query(`ALTER TABLE held_deliveries ADD COLUMN traceparent text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE held_deliveries DROP COLUMN traceparent`);
    await q.query(`ALTER TABLE deliveries DROP COLUMN traceparent`);
  }
}
