import { Client } from 'pg';
import { SchemaDefinition, createDataSource } from './data-source';

/** One advisory lock key for all migrations of the platform: runs never interleave. */
const MIGRATION_LOCK_KEY = 72_100_4242;

export interface MigrationResult {
  schema: string;
  applied: string[];
}

/**
 * Creates the schema if needed and applies pending migrations, under a Postgres advisory lock,
 * so it is safe to run twice and from several processes (Jobs, replicas) at once.
 */
export async function migrateSchema(url: string, def: SchemaDefinition): Promise<MigrationResult> {
  const lock = new Client({ connectionString: url, application_name: `${def.schema}-migrate` });
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    await lock.query(`CREATE SCHEMA IF NOT EXISTS "${def.schema}"`);
    const ds = createDataSource(url, def, 2);
    await ds.initialize();
    try {
      const applied = await ds.runMigrations({ transaction: 'each' });
      return { schema: def.schema, applied: applied.map((m) => m.name) };
    } finally {
      await ds.destroy();
    }
  } finally {
    await lock.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await lock.end();
  }
}
