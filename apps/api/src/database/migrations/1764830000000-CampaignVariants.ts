import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A campaign recipient's variant (docs/campaigns.md#variants): the index into its campaign's
 * `variants`, assigned by the gateway at load; null for a campaign without variants.
 */
export class CampaignVariants1764830000000 implements MigrationInterface {
  name = 'CampaignVariants1764830000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE campaign_recipients ADD COLUMN variant smallint`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE campaign_recipients DROP COLUMN variant`);
  }
}
