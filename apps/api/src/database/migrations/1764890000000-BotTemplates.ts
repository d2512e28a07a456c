import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The gateway accounts' own templates for Telegram and MAX (docs/gateway.md#templates): every
 * version of a name and language is kept, the latest is sent.
 */
export class BotTemplates1764890000000 implements MigrationInterface {
  name = 'BotTemplates1764890000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE bot_templates (
        id bigserial PRIMARY KEY,
        account_id uuid NOT NULL,
        user_id uuid NOT NULL,
        name varchar(512) NOT NULL,
        language varchar(16) NOT NULL,
        version integer NOT NULL,
        category varchar(16) NOT NULL,
        content jsonb NOT NULL,
        params smallint NOT NULL,
        created_at timestamptz NOT NULL,
        CONSTRAINT bot_templates_version_uq UNIQUE (account_id, name, language, version)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE bot_templates`);
  }
}
