// pnpm stack: the whole platform on one machine: Postgres and NATS (given, or started here under
// .data/), migrations, streams, every service and the sandbox, a seeded demo user. Ctrl-C stops it.
import 'reflect-metadata';
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setupNats } from './nats-setup';
import { migrateAll } from './db-migrate';
import { seedDemo } from './seed';
import { startEmbeddedPostgres, startNatsServer, stopChild } from '@app/testing';
import { ADMIN_PORT_OFFSET } from '@app/server';
import { Topology } from '@app/contracts';
import { SERVICE_NODE_FLAGS } from '@app/config';
import {
  natsAuth as natsAuthFor,
  natsAuthorizationConfig,
  natsServerEnv,
  NatsServiceUser,
  randomNatsPasswords,
} from '@app/messaging';

const ROOT = join(__dirname, '..');
/** Compiled services: inside node_modules, so that they find the packages and stay out of jest's sight. */
const BUILD = join(ROOT, 'node_modules', '.cache', 'stack-build');
const DATA = join(ROOT, '.data');
const LOGS = join(DATA, 'logs');

const PORTS = {
  api: Number(process.env.API_PORT ?? 3000),
  gateway: Number(process.env.GATEWAY_PORT ?? 3100),
  queue: Number(process.env.QUEUE_PORT ?? 3200),
  webhooks: Number(process.env.WEBHOOKS_PORT ?? 3300),
  sandbox: Number(process.env.SANDBOX_PORT ?? 3900),
};
type Service = keyof typeof PORTS;
const SERVICES: Service[] = ['sandbox', 'webhooks', 'gateway', 'queue', 'api'];

/** The current process of each service (a restarted service replaces its entry). */
const children = new Map<Service, ChildProcess>();
const restartTimers = new Set<NodeJS.Timeout>();
const cleanups: (() => Promise<void>)[] = [];
let stopping = false;

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

async function startPostgres(): Promise<string> {
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
  const port = Number(process.env.EMBEDDED_PG_PORT ?? 54329);
  const pg = await startEmbeddedPostgres({
    dir: join(DATA, 'postgres'),
    port,
    persistent: true,
    database: 'messaging',
    log: (m) => process.env.STACK_DEBUG && say(m),
  });
  cleanups.push(() => pg.stop());
  say(`postgres: embedded, port ${port}, data in .data/postgres`);
  return pg.url;
}

interface StackNats {
  url: string;
  /** Each service's own NATS user (none when NATS_URL points at a server of the operator's). */
  credentials: (user: NatsServiceUser) => Record<string, string>;
}

/**
 * A local nats-server with the same users and permissions as the cluster's (generated from the
 * topology), with passwords made fresh at every start; or the server NATS_URL names, used as it is.
 */
async function startNats(): Promise<StackNats> {
  if (process.env.NATS_URL) return { url: process.env.NATS_URL, credentials: () => ({}) };
  const port = Number(process.env.LOCAL_NATS_PORT ?? 4223);
  const dir = join(DATA, 'nats');
  mkdirSync(dir, { recursive: true });
  const config = join(dir, 'auth.conf');
  writeFileSync(config, natsAuthorizationConfig(new Topology(process.env.NATS_PREFIX ?? '')));
  const passwords = randomNatsPasswords();
  const nats = await startNatsServer({
    dir,
    port,
    logFile: join(LOGS, 'nats.log'),
    config,
    env: natsServerEnv(passwords),
  });
  cleanups.push(() => nats.stop());
  say(`nats: local nats-server -js with a user per service, port ${port}, data in .data/nats`);
  return { url: nats.url, credentials: (user) => ({ NATS_USER: user, NATS_PASSWORD: passwords[user] }) };
}

async function waitReady(service: Service, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) {
      throw new Error(`${service} exited with ${child.exitCode}; see .data/logs/${service}.log`);
    }
    try {
      const res = await fetch(`http://127.0.0.1:${PORTS[service] + ADMIN_PORT_OFFSET}/readyz`);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline)
      throw new Error(`${service} not ready after ${timeoutMs} ms; see .data/logs/${service}.log`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function shutdown(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    say('stopping…');
    for (const t of restartTimers) clearTimeout(t);
    await Promise.all([...children.values()].map((c) => stopChild(c)));
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
    say('stopped');
  }
  process.exit(code);
}

/**
 * Compiles the services as `pnpm build` does (swc, without the type check) into `out`. Services run
 * compiled, as in the container image: the on-the-fly TypeScript loader reads the whole TypeScript
 * compiler at every start, seconds on a busy machine, and a restart should cost the service only.
 */
export function compileServices(out: string): void {
  rmSync(out, { recursive: true, force: true });
  execFileSync(
    join(ROOT, 'node_modules', '.bin', 'swc'),
    ['apps', 'libs', '-d', out, '--config-file', '.swcrc', '--copy-files', '--ignore', '**/*.spec.ts,**/test/**'],
    { cwd: ROOT, stdio: 'ignore' },
  );
}

/** Quickest wait before restarting a service that died, doubled while it keeps dying soon after start. */
const RESTART_MIN_DELAY_MS = 500;
const RESTART_MAX_DELAY_MS = 30_000;
/** A service that ran this long before dying is restarted after the shortest wait again. */
const HEALTHY_RUN_MS = 30_000;
const restartDelays = new Map<Service, number>();

/**
 * Starts one service; when it dies (other than through Ctrl-C) it is started again, as Kubernetes
 * restarts a container, with a growing wait while it keeps dying right after its start.
 */
function startService(service: Service, env: NodeJS.ProcessEnv): ChildProcess {
  const log = createWriteStream(join(LOGS, `${service}.log`), { flags: 'a' });
  const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, join(BUILD, 'apps', service, 'src', 'main.js')], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const startedAt = Date.now();
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  children.set(service, child);
  child.once('exit', (code, signal) => {
    if (stopping) return;
    const delay =
      Date.now() - startedAt >= HEALTHY_RUN_MS
        ? RESTART_MIN_DELAY_MS
        : Math.min(RESTART_MAX_DELAY_MS, (restartDelays.get(service) ?? RESTART_MIN_DELAY_MS / 2) * 2);
    restartDelays.set(service, delay);
    say(`${service} exited (${code ?? signal}); restarting in ${delay} ms (see .data/logs/${service}.log)`);
    const timer = setTimeout(() => {
      restartTimers.delete(timer);
      if (stopping) return;
      const next = startService(service, env);
      const at = Date.now();
      waitReady(service, next).then(
        () => say(`${service} restarted, ready in ${Date.now() - at} ms`),
        (err: unknown) => say(`${service} restart: ${err instanceof Error ? err.message : String(err)}`),
      );
    }, delay);
    restartTimers.add(timer);
  });
  return child;
}

async function main(): Promise<void> {
  const smoke = process.argv.includes('--smoke');
  mkdirSync(LOGS, { recursive: true });
  process.on('SIGINT', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));

  const databaseUrl = await startPostgres();
  const nats = await startNats();
  const natsUrl = nats.url;
  await migrateAll(databaseUrl);
  await setupNats(natsUrl, process.env.NATS_PREFIX ?? '', {}, natsAuthFor(nats.credentials('setup')));
  say('streams and consumers: ready');

  const urls = Object.fromEntries(Object.entries(PORTS).map(([k, p]) => [k, `http://localhost:${p}`])) as Record<
    Service,
    string
  >;
  const env: NodeJS.ProcessEnv = {
    NODE_ENV: 'development',
    LOG_LEVEL: 'info',
    ...process.env,
    DATABASE_URL: databaseUrl,
    NATS_URL: natsUrl,
    API_PORT: String(PORTS.api),
    GATEWAY_PORT: String(PORTS.gateway),
    QUEUE_PORT: String(PORTS.queue),
    WEBHOOKS_PORT: String(PORTS.webhooks),
    SANDBOX_PORT: String(PORTS.sandbox),
    API_PUBLIC_URL: process.env.API_PUBLIC_URL ?? urls.api,
    GATEWAY_PUBLIC_URL: process.env.GATEWAY_PUBLIC_URL ?? urls.gateway,
    SANDBOX_URL: urls.sandbox,
    WHATSAPP_GRAPH_URL: process.env.WHATSAPP_GRAPH_URL ?? urls.sandbox,
    WEBHOOKS_ALLOW_PRIVATE_TARGETS: process.env.WEBHOOKS_ALLOW_PRIVATE_TARGETS ?? 'true',
    // The sandbox's course platform and media live on this machine.
    ALLOW_PRIVATE_TARGETS: process.env.ALLOW_PRIVATE_TARGETS ?? 'true',
  };
  compileServices(BUILD);
  for (const service of SERVICES) {
    const child = startService(service, { ...env, ...(service === 'sandbox' ? {} : nats.credentials(service)) });
    await waitReady(service, child);
    say(`${service.padEnd(8)} ready on ${urls[service]}   (logs: .data/logs/${service}.log)`);
  }

  const demo = await seedDemo(databaseUrl, urls, join(DATA, 'demo.json'));
  say('');
  say(`demo system user: ${demo.userId}`);
  say(`token (also in .data/demo.json): ${demo.token}`);
  for (const line of demo.instructions) say(line);
  if (smoke) {
    const ok = await demo.check(say);
    say(ok ? 'smoke check: passed' : 'smoke check: FAILED');
    await shutdown(ok ? 0 : 1);
  }
  say('');
  say('Press Ctrl-C to stop everything.');
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`stack: ${err instanceof Error ? err.message : String(err)}\n`);
    void shutdown(1);
  });
}
