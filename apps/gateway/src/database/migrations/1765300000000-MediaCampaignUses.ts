import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Which campaigns send which media library file (docs/media.md#files-campaigns-send): written when a
 * campaign's definition is (created or changed), read when the file is deleted, so a file a live
 * campaign still sends is not deleted under it. The campaign's state is the api's: a row outlives
 * its campaign until a deletion finds it completed, cancelled or gone.
 */
export class MediaCampaignUses1765300000000 implements MigrationInterface {
  name = 'MediaCampaignUses1765300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE media_campaign_uses (
        media_id uuid NOT NULL REFERENCES media_library(id) ON DELETE CASCADE,
        campaign_id uuid NOT NULL,
        PRIMARY KEY (media_id, campaign_id)
      )`);
    await q.query(`CREATE INDEX media_campaign_uses_campaign ON media_campaign_uses (campaign_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE media_campaign_uses`);
  }
}
