import { DataSource } from 'typeorm';
import { pgWire, startTestInfra, TestInfra } from '@app/testing';
import { createDataSource, statementThenCommit, transactionCommittedByLast } from '../src';

const BUMP = `UPDATE commit_probe SET n = n + $1 WHERE id = 1 RETURNING n`;

describe('a transaction committed by its last statement', () => {
  let infra: TestInfra;
  let ds: DataSource;
  let other: DataSource;

  beforeAll(async () => {
    infra = await startTestInfra({ suite: 'commit_last', nats: false });
    // One connection: a transaction left open would hold it, and the next one would show it.
    ds = createDataSource(infra.databaseUrl, { schema: 'public', entities: [], migrations: [] }, 1);
    other = createDataSource(infra.databaseUrl, { schema: 'public', entities: [], migrations: [] }, 1);
    await ds.initialize();
    await other.initialize();
    await ds.query(`CREATE TABLE commit_probe (id integer PRIMARY KEY, n integer NOT NULL CHECK (n >= 0))`);
    await ds.query(`INSERT INTO commit_probe VALUES (1, 0)`);
  });

  afterAll(async () => {
    await ds?.destroy();
    await other?.destroy();
    await infra?.stop();
  });

  const n = async () => ((await other.query(`SELECT n FROM commit_probe WHERE id = 1`)) as { n: number }[])[0].n;

  it('sends the last statement with the COMMIT: its rows, committed, and no COMMIT after it', async () => {
    const before = await n();
    let rows: { n: number }[] = [];
    const wire = await pgWire(async () => {
      rows = await transactionCommittedByLast(ds, async (em) => {
        await em.query(`SELECT n FROM commit_probe WHERE id = 1 FOR UPDATE`);
        return statementThenCommit<{ n: number }>(em, BUMP, [2]);
      });
    });
    expect(rows).toEqual([{ n: before + 2 }]);
    expect(await n()).toBe(before + 2);
    // A first statement without parameters goes as a simple query, after a BEGIN of its own.
    expect(wire).toEqual({
      texts: ['BEGIN', `SELECT n FROM commit_probe WHERE id = 1 FOR UPDATE`, BUMP, 'COMMIT'],
      roundTrips: 3,
    });
    // The row is free at once: another connection takes it without waiting.
    await other.query(`SET lock_timeout = '1s'`);
    await other.query(`SELECT n FROM commit_probe WHERE id = 1 FOR UPDATE NOWAIT`);
  });

  it('opens the transaction with its first statement: a transaction of two statements is two round trips', async () => {
    const first = `UPDATE commit_probe SET n = n + $1 WHERE id = 1 RETURNING n, 'first' AS step`;
    const second = `UPDATE commit_probe SET n = n + $1 WHERE id = 1 RETURNING n, 'second' AS step`;
    const before = await n();
    let rows: unknown[] = [];
    const wire = await pgWire(async () => {
      rows = await transactionCommittedByLast(ds, async (em) => {
        expect(await em.query(first, [1])).toEqual([[{ n: before + 1, step: 'first' }], 1]);
        return statementThenCommit(em, second, [2]);
      });
    });
    expect(rows).toEqual([{ n: before + 3, step: 'second' }]);
    expect(wire).toEqual({ texts: ['BEGIN', first, second, 'COMMIT'], roundTrips: 2 });
    expect(await n()).toBe(before + 3);
    // Nothing sent, nothing to commit.
    expect(await pgWire(() => transactionCommittedByLast(ds, async () => 'nothing'))).toEqual({
      texts: [],
      roundTrips: 0,
    });
  });

  it('a first statement that fails rolls the transaction back, and the connection goes on', async () => {
    const before = await n();
    await expect(
      transactionCommittedByLast(ds, async (em) => {
        await em.query(BUMP, [-1000]);
        return em.query(BUMP, [1]);
      }),
    ).rejects.toMatchObject({ code: '23514' });
    expect(await n()).toBe(before);
    await transactionCommittedByLast(ds, (em) => em.query(BUMP, [1]));
    expect(await n()).toBe(before + 1);
    // The one connection is idle, in no transaction.
    expect(
      await other.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in%'`,
      ),
    ).toEqual([{ n: 0 }]);
  });

  it('rolls everything back when the last statement fails, and the connection goes on', async () => {
    const before = await n();
    await expect(
      transactionCommittedByLast(ds, async (em) => {
        await em.query(BUMP, [5]);
        // Below zero: the CHECK refuses it, and PostgreSQL skips the COMMIT behind it.
        return statementThenCommit(em, BUMP, [-1000]);
      }),
    ).rejects.toMatchObject({ code: '23514' });
    expect(await n()).toBe(before);
    expect(await ds.query(`SELECT 1 AS one`)).toEqual([{ one: 1 }]);
  });

  it('commits as usual when no statement carried the COMMIT, and rolls back when the work throws', async () => {
    const before = await n();
    await transactionCommittedByLast(ds, (em) => em.query(BUMP, [1]));
    expect(await n()).toBe(before + 1);
    await expect(
      transactionCommittedByLast(ds, async (em) => {
        await em.query(BUMP, [1]);
        throw new Error('changed its mind');
      }),
    ).rejects.toThrow('changed its mind');
    expect(await n()).toBe(before + 1);
  });

  it('runs a statement as any other inside a transaction it does not own', async () => {
    const before = await n();
    await ds.transaction(async (em) => {
      await statementThenCommit(em, BUMP, [3]);
      // Still inside the caller's transaction: what follows belongs to it.
      await em.query(BUMP, [4]);
    });
    expect(await n()).toBe(before + 7);
  });

  it('sends a repeated last statement prepared, as every repeated statement', async () => {
    for (let i = 0; i < 4; i++) await transactionCommittedByLast(ds, (em) => statementThenCommit(em, BUMP, [1]));
    const prepared = (await ds.query(`SELECT statement FROM pg_prepared_statements`)) as { statement: string }[];
    expect(prepared.map((p) => p.statement)).toContain(BUMP);
  });
});
