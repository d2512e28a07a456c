import { createHash } from 'node:crypto';
import { Client } from 'pg';
import { migrateSchema } from '@app/database';
import { ALL_SCHEMAS } from '../../scripts/schemas';

/** Serializes the making of the template across jest workers and runs (a key of the admin database's). */
const TEMPLATE_LOCK_KEY = 0x7e3b1a05;
const PREFIX = 'tmpl_migrated_';

let made: Promise<string> | undefined;

/**
 * The name of a database with every service's migrations applied, made once per version of the
 * migrations (named after a hash of their code) and copied by each suite's CREATE DATABASE ...
 * TEMPLATE: a copy takes a tenth of a second where running the migrations takes one to two, in
 * every one of the suites that boot the platform. A template is marked IS_TEMPLATE only once it is
 * complete, so a run that died half-way leaves nothing another run would copy; templates of older
 * migrations are dropped when a new one is made (a copy in progress keeps its source, and the drop
 * is skipped).
 */
export function migratedTemplate(): Promise<string> {
  return (made ??= makeTemplate());
}

async function makeTemplate(): Promise<string> {
  const hash = createHash('sha256');
  for (const def of ALL_SCHEMAS) {
    hash.update(def.schema);
    for (const migration of def.migrations as unknown[]) hash.update(String(migration));
  }
  const name = `${PREFIX}${hash.digest('hex').slice(0, 16)}`;
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) throw new Error('DATABASE_URL is not set: run the tests through jest (its global setup provides it)');
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK_KEY]);
    const done = await admin.query(`SELECT 1 FROM pg_database WHERE datname = $1 AND datistemplate`, [name]);
    if (done.rowCount === 0) {
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.query(`CREATE DATABASE "${name}"`);
      const url = new URL(adminUrl);
      url.pathname = `/${name}`;
      for (const def of ALL_SCHEMAS) await migrateSchema(url.toString(), def);
      await admin.query(`ALTER DATABASE "${name}" WITH IS_TEMPLATE true`);
      const older = await admin.query<{ datname: string }>(
        `SELECT datname FROM pg_database WHERE datname LIKE $1 AND datname <> $2`,
        [`${PREFIX}%`, name],
      );
      for (const { datname } of older.rows) {
        await admin
          .query(`ALTER DATABASE "${datname}" WITH IS_TEMPLATE false`)
          .then(() => admin.query(`DROP DATABASE "${datname}"`))
          .catch(() => undefined);
      }
    }
  } finally {
    await admin.query('SELECT pg_advisory_unlock($1)', [TEMPLATE_LOCK_KEY]).catch(() => undefined);
    await admin.end();
  }
  return name;
}
