import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Sends of the gateway's accounts: a message may come from a gateway account (its delivery report
 * is listed per account, newest first: ids are UUID v7) and a bot channel's message belongs to no WhatsApp app.
 */
export class GatewayMessages1763970000000 implements MigrationInterface {
  name = 'GatewayMessages1763970000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE messages ADD COLUMN account_id uuid`);
    await q.query(`ALTER TABLE messages ALTER COLUMN app_id DROP NOT NULL`);
    await q.query(`CREATE INDEX messages_account_idx ON messages (account_id, id DESC) WHERE account_id IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX messages_account_idx`);
    await q.query(`DELETE FROM messages WHERE app_id IS NULL`);
    await q.query(`ALTER TABLE messages ALTER COLUMN app_id SET NOT NULL`);
    await q.query(`ALTER TABLE messages DROP COLUMN account_id`);
  }
}
