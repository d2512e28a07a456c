import { Query, type ClientBase, type QueryResult } from 'pg';
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { repeatedStatementName, statementFailed } from './prepared-statements';
import { returnedRows } from './rows';

/** The protocol messages node-postgres' connection writes (the part of it used here). */
interface ProtocolWriter {
  parse(query: { text: string; name?: string }): void;
  bind(config: { portal?: string; statement?: string; values?: unknown[] }): void;
  execute(config: { portal?: string; rows?: number }): void;
  sync(): void;
}

/**
 * A statement and a COMMIT behind it, written before one Sync: both in one round trip. PostgreSQL
 * runs them in order; when the statement fails it skips the COMMIT (everything up to the Sync) and
 * the transaction stays open, aborted, for the caller to roll back. The answer is the statement's
 * result and the COMMIT's.
 */
class StatementThenCommit extends Query {
  /** node-postgres' last step of an extended query (after parse, bind and describe): execute and sync. */
  _getRows(connection: ProtocolWriter, rows?: number): void {
    connection.execute({ portal: this.portal ?? '', rows });
    connection.parse({ text: 'COMMIT', name: '' });
    connection.bind({ portal: '', statement: '', values: [] });
    connection.execute({ portal: '' });
    connection.sync();
  }

  declare portal?: string;
}

/** The query runners of `transactionCommittedByLast`, and those whose COMMIT has been sent. */
const owned = new WeakSet<QueryRunner>();
const committed = new WeakSet<QueryRunner>();

/**
 * A transaction whose last statement may carry its COMMIT (`statementThenCommit`): the rows that
 * statement locks are held for it and the commit, not for one more round trip to this process
 * (which, when the process is busy, waits for its turn). When no statement carried it, the
 * transaction commits as any other; when `work` throws, it rolls back unless it was committed.
 */
export async function transactionCommittedByLast<T>(
  ds: DataSource,
  work: (em: EntityManager) => Promise<T>,
): Promise<T> {
  const qr = ds.createQueryRunner();
  await qr.connect();
  owned.add(qr);
  try {
    await qr.query('BEGIN');
    const result = await work(qr.manager);
    if (!committed.has(qr)) await qr.query('COMMIT');
    return result;
  } catch (err) {
    if (!committed.has(qr)) await qr.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    owned.delete(qr);
    committed.delete(qr);
    await qr.release();
  }
}

/**
 * Runs the last statement of a `transactionCommittedByLast` transaction with its COMMIT, in one
 * round trip: its rows once both are done. In any other transaction (or outside one) it runs the
 * statement as `em.query` would, and whoever owns the transaction commits it.
 */
export async function statementThenCommit<T>(em: EntityManager, sql: string, params: unknown[]): Promise<T[]> {
  const qr = em.queryRunner;
  if (!qr || !owned.has(qr) || committed.has(qr)) return returnedRows<T>(await em.query(sql, params));
  const client = (qr as unknown as { databaseConnection: ClientBase }).databaseConnection;
  const name = params.length ? repeatedStatementName(sql) : undefined;
  committed.add(qr);
  try {
    const results = await new Promise<QueryResult[]>((resolve, reject) => {
      client.query(
        new StatementThenCommit(
          { text: sql, values: params, name },
          undefined,
          (err: Error | undefined, res: unknown) => (err ? reject(err) : resolve(res as QueryResult[])),
        ),
      );
    });
    return results[0].rows as T[];
  } catch (err) {
    // The statement failed (the COMMIT was skipped) or the COMMIT did: either way nothing was
    // committed, and the transaction is rolled back.
    committed.delete(qr);
    if (name) statementFailed(sql, err);
    throw err;
  }
}

/** A statement in `em`'s transaction; with `commit`, as `statementThenCommit` (the transaction's last). Its rows. */
export async function statementIn<T>(em: EntityManager, sql: string, params: unknown[], commit = false): Promise<T[]> {
  return commit ? statementThenCommit<T>(em, sql, params) : returnedRows<T>(await em.query(sql, params));
}
