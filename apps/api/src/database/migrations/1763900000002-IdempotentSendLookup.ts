import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Finds the send an Idempotency-Key committed, for a key whose request died before answering
 * (only such keys are looked up, so the index stays small: sends without a key are not in it).
 */
export class IdempotentSendLookup1763900000002 implements MigrationInterface {
  name = 'IdempotentSendLookup1763900000002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX messages_idempotency_idx ON messages (user_id, idempotency_key) WHERE idempotency_key IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX messages_idempotency_idx`);
  }
}
