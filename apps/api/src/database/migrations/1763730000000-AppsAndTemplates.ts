import { MigrationInterface, QueryRunner } from 'typeorm';

export class AppsAndTemplates1763730000000 implements MigrationInterface {
  name = 'AppsAndTemplates1763730000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE apps (
        id serial PRIMARY KEY,
        uuid uuid NOT NULL UNIQUE,
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        name text NOT NULL,
        status text NOT NULL DEFAULT 'INACTIVE' CHECK (status IN ('INACTIVE', 'ACTIVE', 'BLOCKED')),
        message_limit text NOT NULL DEFAULT 'TIER_NOT_SET' CHECK (message_limit IN
          ('TIER_50', 'TIER_250', 'TIER_2K', 'TIER_10K', 'TIER_100K', 'TIER_NOT_SET', 'TIER_UNLIMITED')),
        phone_quality text NOT NULL DEFAULT 'UNKNOWN' CHECK (phone_quality IN ('GREEN', 'YELLOW', 'RED', 'UNKNOWN')),
        phone text,
        waba_id text,
        phone_number_id text,
        is_mm_lite_supported boolean NOT NULL DEFAULT false,
        is_stopped boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX apps_user_idx ON apps (user_id)`);
    await q.query(`CREATE UNIQUE INDEX apps_waba_uq ON apps (waba_id) WHERE waba_id IS NOT NULL`);
    await q.query(
      `CREATE UNIQUE INDEX apps_phone_number_uq ON apps (phone_number_id) WHERE phone_number_id IS NOT NULL`,
    );
    await q.query(`
      CREATE TABLE app_profiles (
        app_id integer PRIMARY KEY REFERENCES apps(id) ON DELETE CASCADE,
        address text,
        country text,
        description text,
        email text,
        website text,
        about text,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE templates (
        id serial PRIMARY KEY,
        app_id integer NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
        wa_id text NOT NULL,
        name text NOT NULL,
        language text NOT NULL,
        category text NOT NULL,
        type text NOT NULL CHECK (type IN ('TEXT', 'IMAGE', 'VIDEO', 'DOCUMENT')),
        status text NOT NULL CHECK (status IN ('PENDING', 'APPROVED', 'REJECTED', 'FAILED', 'PAUSED')),
        quality text NOT NULL DEFAULT 'UNKNOWN' CHECK (quality IN ('UNKNOWN', 'GREEN', 'YELLOW', 'RED')),
        media_url text,
        header jsonb,
        body jsonb NOT NULL,
        footer jsonb,
        buttons jsonb NOT NULL DEFAULT '[]',
        failure_details jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX templates_name_language_uq ON templates (app_id, name, language)`);
    await q.query(`CREATE INDEX templates_wa_id_idx ON templates (app_id, wa_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE templates`);
    await q.query(`DROP TABLE app_profiles`);
    await q.query(`DROP TABLE apps`);
  }
}
