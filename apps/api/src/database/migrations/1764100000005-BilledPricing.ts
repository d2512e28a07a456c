import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the channel billed: a charge keeps the category assumed at send beside the category billed
 * (its `category`), the channel's pricing type, and what the balance could not cover when the
 * channel billed more than was held; a message keeps the billed category, the type and the amount
 * charged. Charges captured before keep nulls (the assumed category was the billed one).
 */
export class BilledPricing1764100000005 implements MigrationInterface {
  name = 'BilledPricing1764100000005';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE transactions
        ADD COLUMN assumed_category text,
        ADD COLUMN pricing_type text,
        ADD COLUMN uncharged numeric(20,4) NOT NULL DEFAULT 0 CHECK (uncharged >= 0)`);
    await q.query(`
      ALTER TABLE messages
        ADD COLUMN billed_category text,
        ADD COLUMN pricing_type text,
        ADD COLUMN charged numeric(20,4)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE messages DROP COLUMN charged, DROP COLUMN pricing_type, DROP COLUMN billed_category`);
    await q.query(
      `ALTER TABLE transactions DROP COLUMN uncharged, DROP COLUMN pricing_type, DROP COLUMN assumed_category`,
    );
  }
}
