import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The key a campaign was launched with (the client's Idempotency-Key, or one per launch request): a
 * launch tried again after its answer was lost answers the launched campaign instead of 409. Null
 * for drafts and for campaigns launched before it was kept.
 */
export class CampaignLaunchKey1765000000000 implements MigrationInterface {
  name = 'CampaignLaunchKey1765000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE campaigns ADD COLUMN IF NOT EXISTS launch_key text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE campaigns DROP COLUMN IF EXISTS launch_key`);
  }
}
