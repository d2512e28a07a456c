import { Client } from 'pg';
import { standInForAutovacuum, startTestInfra, TestInfra, waitFor } from '../src';

/** The table's dead and live rows and whether it was ever vacuumed or analysed by hand. */
const STATS = `SELECT n_dead_tup::int AS dead, n_live_tup::int AS live,
                      last_vacuum IS NOT NULL AS vacuumed, last_analyze IS NOT NULL AS analyzed
                 FROM pg_stat_user_tables WHERE relname = $1`;

describe('the autovacuum stand-in of the benches', () => {
  let infra: TestInfra;
  let db: Client;

  beforeAll(async () => {
    infra = await startTestInfra({ suite: 'autovacuum', nats: false });
    db = new Client({ connectionString: infra.databaseUrl });
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
    await infra?.stop();
  });

  it("vacuums a table past autovacuum's threshold and analyses one past the analyze threshold, and only where the server does not", async () => {
    await db.query(`CREATE TABLE churned (id integer PRIMARY KEY, status text)`);
    await db.query(`CREATE TABLE grown (id integer PRIMARY KEY)`);
    await db.query(`CREATE TABLE quiet (id integer PRIMARY KEY)`);
    await db.query(`INSERT INTO churned SELECT g, 'QUEUED' FROM generate_series(1, 2000) g`);
    await db.query(`INSERT INTO quiet SELECT g FROM generate_series(1, 2000) g`);
    // Analysed once its insert is counted (a session reports its counts up to a second late).
    await waitFor(async () => (await db.query(STATS, ['quiet'])).rows[0]?.live === 2000, 10_000);
    await db.query(`VACUUM ANALYZE quiet`);
    // Every row of `churned` updated twice: 4,000 dead versions beside 2,000 live ones.
    await db.query(`UPDATE churned SET status = 'SENT'`);
    await db.query(`UPDATE churned SET status = 'DELIVERED'`);
    await db.query(`INSERT INTO grown SELECT g FROM generate_series(1, 500) g`);
    // The statistics reach pg_stat_user_tables when the session reports them (within a second).
    await waitFor(async () => (await db.query(STATS, ['churned'])).rows[0]?.dead >= 4000, 10_000);
    const settledQuiet = `SELECT 1 FROM pg_stat_user_tables
                           WHERE relname = 'quiet' AND n_mod_since_analyze = 0 AND n_live_tup = 2000`;
    await waitFor(async () => (await db.query(settledQuiet)).rows.length === 1, 10_000, 'quiet analysed by hand');

    const stand = standInForAutovacuum(infra.databaseUrl, { naptimeMs: 200 });
    try {
      if (await stand.serverRunsIt) {
        // The server's own autovacuum does this work: the stand-in leaves it alone.
        await new Promise((r) => setTimeout(r, 1000));
        expect(stand.counts).toEqual({ vacuumed: 0, analyzed: 0 });
        return;
      }
      await waitFor(
        async () => (await db.query(STATS, ['grown'])).rows[0]?.analyzed === true,
        20_000,
        `grown analysed (${stand.lastError() ?? 'no error'})`,
      );
      const stats = async (table: string) => (await db.query(STATS, [table])).rows[0];
      await waitFor(async () => (await stats('churned')).vacuumed === true, 20_000);
      expect(await stats('churned')).toMatchObject({ vacuumed: true, analyzed: true, live: 2000 });
      expect((await stats('churned')).dead).toBeLessThan(4000);
      // Analysed, not vacuumed: it has no dead rows. And a table below both thresholds is left alone.
      expect(await stats('grown')).toMatchObject({ vacuumed: false, analyzed: true, live: 500 });
      const { rows } = await db.query<{ n: string }>(
        `SELECT vacuum_count + analyze_count AS n FROM pg_stat_user_tables WHERE relname = 'quiet'`,
      );
      expect(Number(rows[0].n)).toBe(2);
    } finally {
      await stand.stop();
    }
  });
});
