import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An account's default region for national phone numbers its contacts and sends are written in
 * (docs/contacts.md#fields), and the external id of a rejected import row, so that a report names
 * the business's own id beside the row's number.
 */
export class PhoneRegions1764400000000 implements MigrationInterface {
  name = 'PhoneRegions1764400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE accounts ADD COLUMN default_region text`);
    await q.query(`ALTER TABLE contact_import_rejections ADD COLUMN external_id text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE contact_import_rejections DROP COLUMN external_id`);
    await q.query(`ALTER TABLE accounts DROP COLUMN default_region`);
  }
}
