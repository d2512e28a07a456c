import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { Topology } from '@app/contracts';
import { DEFAULT_TOPOLOGY_OPTIONS, deleteTopology, NatsClients, setupTopology, TopologyOptions } from '@app/messaging';
import { standInForAutovacuum } from './autovacuum';

export interface TestInfraOptions {
  /** Short name of the suite: part of the database name, for finding leftovers. */
  suite: string;
  database?: boolean;
  nats?: boolean;
  topology?: Partial<TopologyOptions>;
  /** A database to copy (CREATE DATABASE ... TEMPLATE): one already migrated, say. */
  template?: string;
  /**
   * Vacuum and analyse the database as autovacuum would when the server runs without it
   * (`standInForAutovacuum`): the benches, whose figures must be a default Postgres's.
   */
  autovacuum?: boolean;
}

/** A suite's own database and stream prefix on the shared Postgres and NATS servers. */
export interface TestInfra {
  databaseUrl: string;
  natsUrl: string;
  prefix: string;
  topology: Topology;
  /** The environment a service under test needs (DATABASE_URL, NATS_URL, NATS_PREFIX, NODE_ENV). */
  env: Record<string, string>;
  /** Drops the database and deletes the suite's streams. */
  stop(): Promise<void>;
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the tests through jest (its global setup provides it)`);
  return value;
}

function withDatabase(url: string, db: string): string {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}

/** Creates a fresh database and topology prefix for one suite; `stop()` removes both. */
export async function startTestInfra(opts: TestInfraOptions): Promise<TestInfra> {
  const id = randomBytes(4).toString('hex');
  const slug = opts.suite
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .slice(0, 20);
  const prefix = `t${id}`;
  const topology = new Topology(prefix);
  const natsUrl = required('NATS_URL');
  const adminUrl = required('DATABASE_URL');
  const dbName = `t_${slug}_${id}`;
  let databaseUrl = adminUrl;
  const cleanups: (() => Promise<void>)[] = [];

  if (opts.database !== false) {
    const admin = new Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${dbName}"${opts.template ? ` TEMPLATE "${opts.template}"` : ''}`);
    await admin.end();
    databaseUrl = withDatabase(adminUrl, dbName);
    cleanups.push(async () => {
      const c = new Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
      await c.end();
    });
    if (opts.autovacuum) {
      const stand = standInForAutovacuum(databaseUrl);
      cleanups.push(() => stand.stop());
    }
  }
  if (opts.nats !== false) {
    const clients = await NatsClients.connect({ url: natsUrl, name: `test-${slug}` });
    await setupTopology(await clients.jsm(), topology, {
      ...DEFAULT_TOPOLOGY_OPTIONS,
      storage: 'memory',
      ...opts.topology,
    });
    cleanups.push(async () => {
      await deleteTopology(await clients.jsm(), topology);
      await clients.drain();
    });
  }

  return {
    databaseUrl,
    natsUrl,
    prefix,
    topology,
    env: { DATABASE_URL: databaseUrl, NATS_URL: natsUrl, NATS_PREFIX: prefix, NODE_ENV: 'test', LOG_LEVEL: 'warn' },
    async stop() {
      for (const c of cleanups.reverse()) await c();
    },
  };
}
