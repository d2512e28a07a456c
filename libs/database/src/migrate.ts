import { Client } from 'pg';
import { SchemaDefinition, createDataSource } from './data-source';

/** One advisory lock key for all migrations of the platform: runs never interleave. */
const MIGRATION_LOCK_KEY = 72_100_4242;

export interface MigrationResult {
  schema: string;
  applied: string[];
}

/** How often a second migrating process asks for the lock again. */
const LOCK_RETRY_MS = 200;

/**
 * Takes the migration lock by asking for it again until it is free, instead of waiting inside
 * `pg_advisory_lock`: a session waiting there holds a snapshot, and a migration that builds an
 * index CONCURRENTLY in the lock holder's own connection waits for every older snapshot to end,
 * which the waiter's never would (a deadlock Postgres cannot see: the lock is held by another
 * session of the same process).
 */
async function takeLock(lock: Client): Promise<void> {
  for (;;) {
    const { rows } = await lock.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [MIGRATION_LOCK_KEY]);
    if (rows[0]?.ok) return;
    await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS));
  }
}

/**
 * Creates the schema if needed and applies pending migrations, under a Postgres advisory lock,
 * so it is safe to run twice and from several processes (Jobs, replicas) at once.
 */
export async function migrateSchema(url: string, def: SchemaDefinition): Promise<MigrationResult> {
  const lock = new Client({ connectionString: url, application_name: `${def.schema}-migrate` });
  await lock.connect();
  try {
    await takeLock(lock);
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
