// pnpm db:migrate: applies every service's pending migrations (safe to run twice, or in parallel).
import 'reflect-metadata';
import { migrateSchema } from '@app/database';
import { ALL_SCHEMAS } from './schemas';

export async function migrateAll(url: string): Promise<void> {
  for (const def of ALL_SCHEMAS) {
    const { applied } = await migrateSchema(url, def);
    process.stdout.write(`${def.schema}: ${applied.length ? `applied ${applied.join(', ')}` : 'up to date'}\n`);
  }
}

if (require.main === module) {
  const url = process.env.DATABASE_URL;
  if (!url) {
    process.stderr.write('db:migrate: DATABASE_URL is not set (e.g. postgres://postgres@127.0.0.1:5432/messaging)\n');
    process.exit(78);
  }
  migrateAll(url).catch((err: unknown) => {
    process.stderr.write(`db:migrate failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
