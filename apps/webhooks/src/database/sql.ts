import { DataSource, EntityManager } from 'typeorm';

/**
 * Runs SQL and returns its rows whatever the command (TypeORM hands UPDATE ... RETURNING back as
 * `[rows, count]` but INSERT ... RETURNING as rows).
 */
export async function sqlRows<T>(db: DataSource | EntityManager, sql: string, params: unknown[] = []): Promise<T[]> {
  const manager = db instanceof DataSource ? db.manager : db;
  const own = manager.queryRunner ? undefined : manager.connection.createQueryRunner();
  const runner = manager.queryRunner ?? own!;
  try {
    const result = await runner.query(sql, params, true);
    return (result.records ?? []) as T[];
  } finally {
    await own?.release();
  }
}
