import { Client } from 'pg';

/** When the stand-in looks, and the thresholds it applies. */
export interface AutovacuumSettings {
  naptimeMs: number;
  vacuumThreshold: number;
  vacuumScaleFactor: number;
  analyzeThreshold: number;
  analyzeScaleFactor: number;
}

/** Postgres's defaults: autovacuum_naptime, the vacuum and analyze thresholds and scale factors. */
export const AUTOVACUUM_DEFAULTS: Readonly<AutovacuumSettings> = {
  naptimeMs: 60_000,
  vacuumThreshold: 50,
  vacuumScaleFactor: 0.2,
  analyzeThreshold: 50,
  analyzeScaleFactor: 0.1,
};

export interface AutovacuumStand {
  /** Tables vacuumed (with ANALYZE) and tables only analysed so far. */
  readonly counts: { vacuumed: number; analyzed: number };
  /** The last pass's error, if it failed (the next pass tries again). */
  readonly lastError: () => string | null;
  /** Whether the server runs its own autovacuum (then this does nothing). */
  readonly serverRunsIt: Promise<boolean>;
  stop(): Promise<void>;
}

/**
 * Does for one database what Postgres's autovacuum would, where the server runs without it (this
 * machine's Postgres has `autovacuum = off`). A production Postgres has it on, as by default, and
 * the platform relies on it: every message row is updated three or four times as its statuses
 * arrive, and without vacuum the dead versions pile up in the table and every index (a campaign
 * bench's messages table held 400,000 dead rows beside 123,000 live ones), and without ANALYZE the
 * planner plans new tables as empty. The benches run this beside their platform so that their
 * figures are a default Postgres's: every `naptimeMs`, each table whose dead rows passed the
 * vacuum threshold (50 + 20 % of its rows) is vacuumed and analysed, and each whose changes passed
 * the analyze threshold (50 + 10 %) analysed, one table at a time and throttled by autovacuum's
 * own cost delay (2 ms per 200 pages' cost), as one autovacuum worker does.
 */
export function standInForAutovacuum(databaseUrl: string, opts: Partial<AutovacuumSettings> = {}): AutovacuumStand {
  const o = { ...AUTOVACUUM_DEFAULTS, ...opts };
  const counts = { vacuumed: 0, analyzed: 0 };
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let lastError: string | null = null;
  const client = new Client({ connectionString: databaseUrl, application_name: 'autovacuum stand-in' });
  // A dropped database or a stopped server ends the stand-in quietly: the run it served is over.
  client.on('error', () => undefined);
  const connected = client.connect();

  const serverRunsIt = connected.then(async () => {
    const { rows } = await client.query<{ autovacuum: string }>('SHOW autovacuum');
    return rows[0].autovacuum === 'on';
  });

  const pass = async (): Promise<void> => {
    const { rows } = await client.query<{ name: string; vacuum: boolean; analyze: boolean }>(
      `SELECT format('%I.%I', schemaname, relname) AS name,
              n_dead_tup > $1::float8 + $2::float8 * n_live_tup AS vacuum,
              n_mod_since_analyze > $3::float8 + $4::float8 * n_live_tup AS analyze
         FROM pg_stat_user_tables
        ORDER BY n_dead_tup DESC`,
      [o.vacuumThreshold, o.vacuumScaleFactor, o.analyzeThreshold, o.analyzeScaleFactor],
    );
    for (const t of rows) {
      if (stopped) return;
      if (t.vacuum) {
        await client.query(`VACUUM (ANALYZE) ${t.name}`);
        counts.vacuumed++;
      } else if (t.analyze) {
        await client.query(`ANALYZE ${t.name}`);
        counts.analyzed++;
      }
    }
  };

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = pass()
        .then(
          () => void (lastError = null),
          (err: unknown) => void (lastError = String(err)),
        )
        .then(schedule);
    }, o.naptimeMs);
    timer.unref();
  };

  void serverRunsIt
    .then(async (itRuns) => {
      if (itRuns || stopped) return;
      await client.query(`SET vacuum_cost_delay = '2ms'`);
      await client.query(`SET vacuum_cost_limit = 200`);
      schedule();
    })
    .catch(() => undefined);

  return {
    counts,
    lastError: () => lastError,
    serverRunsIt: serverRunsIt.catch(() => false),
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
      await connected.catch(() => undefined);
      await client.end().catch(() => undefined);
    },
  };
}
