import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a campaign's budget counts (docs/campaigns.md#the-budget): each recipient keeps `reserved`,
 * the dearest price of its route, set while a runner holds it for a send under the campaign's row
 * lock, so that every replica counts the sends in flight with the holds and the captures; a
 * campaign keeps `budget_wait`, the price its next recipient waits to fit (its ticks only count
 * again until it does); and `campaigns.committed` is dropped: the budget counts held plus
 * captured, read from the holds.
 */
export class CampaignBudgetReservations1764800000000 implements MigrationInterface {
  name = 'CampaignBudgetReservations1764800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE campaign_recipients ADD COLUMN reserved numeric(20,4)`);
    await q.query(`ALTER TABLE campaigns DROP COLUMN committed, ADD COLUMN budget_wait numeric(20,4)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE campaigns DROP COLUMN budget_wait, ADD COLUMN committed numeric(20,4) NOT NULL DEFAULT 0`,
    );
    await q.query(`ALTER TABLE campaign_recipients DROP COLUMN reserved`);
  }
}
