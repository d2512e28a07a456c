/**
 * The rows of a `... RETURNING` query run through TypeORM: for UPDATE and DELETE the Postgres
 * driver answers `[rows, rowCount]`, for INSERT and SELECT the rows themselves.
 */
export function returnedRows<T>(result: unknown): T[] {
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') {
    return result[0] as T[];
  }
  return result as T[];
}
