import { Client, Query, type ClientBase, type QueryResult } from 'pg';
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

/**
 * A BEGIN and a statement behind it, written before one Sync: the transaction opens with its
 * first statement, in one round trip. The answer is the BEGIN's result and the statement's.
 */
class BeginThenStatement extends Query {
  prepare(connection: ProtocolWriter): void {
    connection.parse({ text: 'BEGIN', name: '' });
    connection.bind({ portal: '', statement: '', values: [] });
    connection.execute({ portal: '' });
    (Query.prototype as unknown as { prepare(c: ProtocolWriter): void }).prepare.call(this, connection);
  }
}

type QueryFn = (this: ClientBase, ...args: unknown[]) => unknown;
/** Clients whose next query opens the transaction (`transactionCommittedByLast`). */
const beginPending = new WeakSet<object>();

/**
 * Makes a client whose BEGIN is pending send it with its next query: a parameterized statement
 * (text and values, or a config of them) goes as `BeginThenStatement`, prepared as any repeated
 * statement; anything else (a query object of its own, a callback, no values) after a BEGIN of its
 * own, queued first on the same connection.
 */
function carryBeginWithNextQuery(): void {
  const proto = Client.prototype as unknown as { query: QueryFn };
  const query = proto.query;
  proto.query = function (this: ClientBase, ...args: unknown[]) {
    if (!beginPending.has(this)) return query.apply(this, args);
    beginPending.delete(this);
    const config = parameterized(args);
    if (!config) {
      void (query.call(this, 'BEGIN') as Promise<unknown>).catch(() => undefined);
      return query.apply(this, args);
    }
    const { text, values } = config;
    const name = config.name ?? repeatedStatementName(text);
    return new Promise<QueryResult>((resolve, reject) => {
      query.call(
        this,
        new BeginThenStatement({ text, values, name }, undefined, (err: Error | undefined, res: unknown) =>
          err ? reject(err) : resolve((res as QueryResult[])[1]),
        ),
      );
    }).catch((err: unknown) => {
      if (name) statementFailed(text, err);
      throw err;
    });
  };
}

carryBeginWithNextQuery();

/** A query's arguments as text and values when it is a parameterized statement answered by a promise. */
function parameterized(args: unknown[]): { text: string; values: unknown[]; name?: string } | null {
  const [first, second, third] = args;
  const config = typeof first === 'string' ? { text: first, values: second } : second === undefined ? first : null;
  if (config === null || typeof config !== 'object' || 'submit' in config || 'callback' in config) return null;
  const { text, values, name } = config as { text?: unknown; values?: unknown; name?: unknown };
  if (typeof text !== 'string' || !Array.isArray(values) || values.length === 0 || third !== undefined) return null;
  return { text, values, ...(typeof name === 'string' ? { name } : {}) };
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
  const client = connectionOf(qr);
  owned.add(qr);
  // The BEGIN goes with the first statement (one round trip less); a transaction that sent
  // nothing has nothing to commit or roll back.
  beginPending.add(client);
  /** Begun (a statement carried the BEGIN) and not yet committed by a statement. */
  const open = () => !committed.has(qr) && !beginPending.has(client);
  try {
    const result = await work(qr.manager);
    if (open()) await qr.query('COMMIT');
    return result;
  } catch (err) {
    if (open()) await qr.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    beginPending.delete(client);
    owned.delete(qr);
    committed.delete(qr);
    await qr.release();
  }
}

/** The node-postgres client a TypeORM query runner holds. */
function connectionOf(qr: QueryRunner): ClientBase {
  return (qr as unknown as { databaseConnection: ClientBase }).databaseConnection;
}

/**
 * Runs the last statement of a `transactionCommittedByLast` transaction with its COMMIT, in one
 * round trip: its rows once both are done. In any other transaction (or outside one) it runs the
 * statement as `em.query` would, and whoever owns the transaction commits it.
 */
export async function statementThenCommit<T>(em: EntityManager, sql: string, params: unknown[]): Promise<T[]> {
  const qr = em.queryRunner;
  if (!qr || !owned.has(qr) || committed.has(qr)) return returnedRows<T>(await em.query(sql, params));
  const client = connectionOf(qr);
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
