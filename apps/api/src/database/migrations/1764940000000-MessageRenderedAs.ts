import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a content send's channel was asked to send (`rendered_as`: a list drawn as buttons on MAX,
 * a Flow as a link on Telegram), kept with the message for its report; null for template sends
 * and for messages accepted before it was kept.
 */
export class MessageRenderedAs1764940000000 implements MigrationInterface {
  name = 'MessageRenderedAs1764940000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE messages ADD COLUMN IF NOT EXISTS rendered_as text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE messages DROP COLUMN IF EXISTS rendered_as`);
  }
}
