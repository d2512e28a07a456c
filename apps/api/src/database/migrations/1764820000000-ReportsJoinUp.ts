import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Reports that join up: the contact a message was sent to (its id and external id, kept as the
 * gateway gave them; null for messages sent to an address and for those older than the columns),
 * the campaign a charge belongs to (copied from its message when captured; older charges are filled
 * in here), and the status of a receiptless channel's charge (Telegram, MAX: the message ends at
 * SENT, and so does its transaction). The delivery report's campaign and contact filters page an
 * account's messages newest first by index, as the unfiltered report does; spend per campaign reads
 * a user's charges by campaign.
 */
export class ReportsJoinUp1764820000000 implements MigrationInterface {
  name = 'ReportsJoinUp1764820000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE messages ADD COLUMN contact_id text, ADD COLUMN contact_external_id text`);
    await q.query(`ALTER TABLE transactions ADD COLUMN campaign_id uuid`);
    await q.query(
      `UPDATE transactions t SET campaign_id = m.campaign_id
       FROM messages m WHERE m.id = t.message_id AND m.campaign_id IS NOT NULL`,
    );
    // The channels registered without receipts when this ran: their charges read SENT, as their messages.
    await q.query(
      `UPDATE transactions t SET status = 'SENT'
       FROM messages m WHERE m.id = t.message_id AND t.status = 'DELIVERED' AND m.channel IN ('telegram', 'max')`,
    );
    await q.query(
      `CREATE INDEX messages_account_campaign_idx ON messages (account_id, campaign_id, id DESC)
       WHERE account_id IS NOT NULL AND campaign_id IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX messages_account_contact_idx ON messages (account_id, contact_id, id DESC)
       WHERE account_id IS NOT NULL AND contact_id IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX transactions_user_campaign_idx ON transactions (user_id, campaign_id, created_at)
       WHERE campaign_id IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX transactions_user_campaign_idx`);
    await q.query(`DROP INDEX messages_account_contact_idx`);
    await q.query(`DROP INDEX messages_account_campaign_idx`);
    await q.query(
      `UPDATE transactions t SET status = 'DELIVERED'
       FROM messages m WHERE m.id = t.message_id AND t.status = 'SENT'`,
    );
    await q.query(`ALTER TABLE transactions DROP COLUMN campaign_id`);
    await q.query(`ALTER TABLE messages DROP COLUMN contact_id, DROP COLUMN contact_external_id`);
  }
}
