import { MigrationInterface, QueryRunner } from 'typeorm';

/** The per-token request rate of account tokens, shared by the gateway's replicas (disposable state). */
export class RateLimits1763980000000 implements MigrationInterface {
  name = 'RateLimits1763980000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE UNLOGGED TABLE rate_limits (
        key text PRIMARY KEY,
        tokens double precision NOT NULL,
        allowed boolean NOT NULL,
        refilled_at timestamptz NOT NULL
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE rate_limits`);
  }
}
