import { DataSource } from 'typeorm';
import { startTestInfra, TestInfra } from '@app/testing';
import { createDataSource } from '../src';

/** The statements PostgreSQL holds prepared for the session the query runs in. */
const PREPARED = `SELECT statement FROM pg_prepared_statements WHERE statement LIKE '%prepared_probe%' ORDER BY statement`;

describe('repeated statements, prepared once per connection', () => {
  let infra: TestInfra;
  let ds: DataSource;

  beforeAll(async () => {
    infra = await startTestInfra({ suite: 'prepared', nats: false });
    // One connection: every statement below runs in the same session.
    ds = createDataSource(infra.databaseUrl, { schema: 'public', entities: [], migrations: [] }, 1);
    await ds.initialize();
    await ds.query(`CREATE TABLE prepared_probe (id integer PRIMARY KEY, label text)`);
    await ds.query(`INSERT INTO prepared_probe VALUES (1, 'one'), (2, 'two')`);
  });

  afterAll(async () => {
    await ds?.destroy();
    await infra?.stop();
  });

  it('names a parameterized statement from its third execution, and answers it the same', async () => {
    const read = (id: number) => ds.query(`SELECT label FROM prepared_probe WHERE id = $1`, [id]);
    expect(await read(1)).toEqual([{ label: 'one' }]);
    expect(await read(2)).toEqual([{ label: 'two' }]);
    expect(await ds.query(PREPARED)).toEqual([]);
    for (let i = 0; i < 5; i++) expect(await read(1 + (i % 2))).toEqual([{ label: i % 2 ? 'two' : 'one' }]);
    const prepared = (await ds.query(PREPARED)) as { statement: string }[];
    expect(prepared.map((p) => p.statement)).toEqual([`SELECT label FROM prepared_probe WHERE id = $1`]);
    // Inside a transaction it is the same statement, and a failed one leaves the others working.
    await expect(
      ds.transaction(async (em) => {
        expect(await em.query(`SELECT label FROM prepared_probe WHERE id = $1`, [2])).toEqual([{ label: 'two' }]);
        await em.query(`SELECT label FROM prepared_probe WHERE id = $1::integer`, ['not a number']);
      }),
    ).rejects.toThrow(/invalid input syntax/);
    expect(await read(2)).toEqual([{ label: 'two' }]);
  });

  it('leaves statements without parameters and one-off statements unnamed', async () => {
    for (let i = 0; i < 5; i++) await ds.query(`SELECT count(*) FROM prepared_probe /* prepared_probe plain */`);
    await ds.query(`SELECT label FROM prepared_probe WHERE id = $1 /* once */`, [1]);
    const prepared = (await ds.query(PREPARED)) as { statement: string }[];
    expect(prepared.map((p) => p.statement)).not.toContainEqual(expect.stringContaining('plain'));
    expect(prepared.map((p) => p.statement)).not.toContainEqual(expect.stringContaining('once'));
  });

  it('stops naming a statement whose result columns a migration changed, after one refusal', async () => {
    const all = (id: number) => ds.query(`SELECT * FROM prepared_probe WHERE id = $1`, [id]);
    for (let i = 0; i < 4; i++) await all(1);
    await ds.query(`ALTER TABLE prepared_probe ADD COLUMN extra text`);
    // PostgreSQL refuses the prepared statement once its result columns changed ...
    await expect(all(1)).rejects.toMatchObject({ code: '0A000' });
    // ... and from then on the statement goes unnamed, with the new columns.
    expect(await all(1)).toEqual([{ id: 1, label: 'one', extra: null }]);
    expect(await all(2)).toEqual([{ id: 2, label: 'two', extra: null }]);
  });
});
