import { DataSource, EntityManager } from 'typeorm';

/**
 * The rows of a query run through TypeORM. Its Postgres driver answers UPDATE and DELETE as
 * `[rows, rowCount]` but INSERT and SELECT as the rows themselves, `... RETURNING` or not.
 */
export function returnedRows<T>(result: unknown): T[] {
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') {
    return result[0] as T[];
  }
  return result as T[];
}

/** Runs SQL (in the manager's transaction, when it has one) and returns its rows whatever the command. */
export async function sqlRows<T>(db: DataSource | EntityManager, sql: string, params: unknown[] = []): Promise<T[]> {
  return returnedRows<T>(await db.query(sql, params));
}

/** PostgreSQL's error codes the services act on. */
export const PG_ERROR = { uniqueViolation: '23505', serializationFailure: '40001', deadlockDetected: '40P01' } as const;

/** Whether `err` is PostgreSQL's error `code` (from a TypeORM query or the pg driver). */
export function isPgError(err: unknown, code: string): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === code;
}
