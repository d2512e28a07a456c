import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Replies to a campaign's messages (docs/campaigns.md#replies): when a recipient first answered
 * its message and what the answer was (a button press replaces a plain answer once). The partial
 * index serves the `replied` engagement filter and the report's counts; the one on `message_id`
 * finds the recipient of a message replied to; the one on campaign messages by address finds, for
 * an inbound message, the campaign messages its sender was sent in the reply window (a few index
 * entries per sender, however many messages the tenant sends).
 */
export class CampaignReplies1764880000000 implements MigrationInterface {
  name = 'CampaignReplies1764880000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE campaign_recipients ADD COLUMN replied_at timestamptz, ADD COLUMN reply jsonb`);
    await q.query(
      `CREATE INDEX campaign_recipients_replied ON campaign_recipients (campaign_id, replied_at)
         WHERE replied_at IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX campaign_recipients_message ON campaign_recipients (message_id) WHERE message_id IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX messages_campaign_address_idx ON messages (user_id, channel, ltrim(recipient, '+'), created_at)
         WHERE campaign_id IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX messages_campaign_address_idx`);
    await q.query(`DROP INDEX campaign_recipients_message`);
    await q.query(`DROP INDEX campaign_recipients_replied`);
    await q.query(`ALTER TABLE campaign_recipients DROP COLUMN replied_at, DROP COLUMN reply`);
  }
}
