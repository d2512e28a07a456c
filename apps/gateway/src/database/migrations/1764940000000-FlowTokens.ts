import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The flow tokens of WhatsApp Flow sends (docs/gateway.md#whatsapp-flows): each token the platform
 * made, with the account and the message it went out with, so a submitted Flow (its `nfm_reply`
 * carries the token back) is joined to that message. Kept for FLOW_TOKEN_KEEP_DAYS.
 */
export class FlowTokens1764940000000 implements MigrationInterface {
  name = 'FlowTokens1764940000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE flow_tokens (
        token text PRIMARY KEY,
        account_id uuid NOT NULL,
        message_id text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX flow_tokens_created ON flow_tokens (created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE flow_tokens`);
  }
}
