// pnpm stack: the whole platform on one machine: Postgres and NATS (given, or started here under
// .data/), migrations, streams, every service and the sandbox, a seeded demo user. Ctrl-C stops it.
import 'reflect-metadata';
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { join, relative, resolve } from 'node:path';
import { setupNats } from './nats-setup';
import { migrateAll } from './db-migrate';
import { seedDemo } from './seed';
import { startEmbeddedPostgres, startNatsServer, stopChild } from '@app/testing';
import { Topology } from '@app/contracts';
import { SERVICE_NODE_FLAGS } from '@app/config';
import {
  natsAuth as natsAuthFor,
  natsAuthorizationConfig,
  natsServerEnv,
  NatsServiceUser,
  randomNatsPasswords,
} from '@app/messaging';
import {
  portsInUse,
  portsInUseRefusal,
  serviceUrlsEnv,
  STACK_SERVICES,
  StackPorts,
  stackPortList,
  stackPorts,
  StackRefusal,
  StackService,
  stackUrls,
} from './stack-ports';

const ROOT = join(__dirname, '..');
/** Postgres and NATS data, logs and the demo user's tokens; STACK_DATA_DIR moves it (a second stack beside the first). */
const DATA = resolve(process.env.STACK_DATA_DIR || join(ROOT, '.data'));
const LOGS = join(DATA, 'logs');
/** Compiled services: inside node_modules, so that they find the packages and stay out of jest's sight; one per data directory. */
export function stackBuildDir(dataDir: string): string {
  const id = createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 12);
  return join(ROOT, 'node_modules', '.cache', 'stack-build', id);
}
const BUILD = stackBuildDir(DATA);
/** A path as the user may type it, from where the stack was started. */
const shown = (path: string) => relative(process.cwd(), path) || '.';

type Service = StackService;
const SERVICES = STACK_SERVICES;

/** The current process of each service (a restarted service replaces its entry). */
const children = new Map<Service, ChildProcess>();
const restartTimers = new Set<NodeJS.Timeout>();
const cleanups: (() => Promise<void>)[] = [];
let stopping = false;

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

async function startPostgres(port: number | undefined): Promise<string> {
  if (process.env.DATABASE_URL || port === undefined) return process.env.DATABASE_URL ?? '';
  const pg = await startEmbeddedPostgres({
    dir: join(DATA, 'postgres'),
    port,
    persistent: true,
    database: 'messaging',
    log: (m) => process.env.STACK_DEBUG && say(m),
  });
  cleanups.push(() => pg.stop());
  say(`postgres: embedded, port ${port}, data in ${shown(join(DATA, 'postgres'))}`);
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
async function startNats(port: number | undefined): Promise<StackNats> {
  if (process.env.NATS_URL || port === undefined) return { url: process.env.NATS_URL ?? '', credentials: () => ({}) };
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
  say(`nats: local nats-server -js with a user per service, port ${port}, data in ${shown(dir)}`);
  return { url: nats.url, credentials: (user) => ({ NATS_USER: user, NATS_PASSWORD: passwords[user] }) };
}

/** The status /readyz answers on 127.0.0.1:port (node:http: no fetch() blocked-port list), or undefined. */
function readyzStatus(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const req = get({ host: '127.0.0.1', port, path: '/readyz', timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.once('timeout', () => req.destroy());
    req.once('error', () => resolve(undefined));
  });
}

function logOf(service: Service): string {
  return join(LOGS, `${service}.log`);
}

/** The last output of each service process (what it said before it exited), besides its log file. */
const recentOutput = new WeakMap<ChildProcess, { text: string; closed: Promise<void> }>();
const RECENT_OUTPUT_CHARS = 16_384;

function keepRecentOutput(child: ChildProcess): void {
  const kept = { text: '', closed: new Promise<void>((r) => child.once('close', () => r())) };
  const add = (chunk: Buffer) => {
    kept.text = (kept.text + chunk.toString('utf8')).slice(-RECENT_OUTPUT_CHARS);
  };
  child.stdout?.on('data', add);
  child.stderr?.on('data', add);
  recentOutput.set(child, kept);
}

/** Why a service exited: the port it could not bind, named with the setting that moves it, or its log. */
async function exitReason(service: Service, child: ChildProcess, ports: StackPorts): Promise<Error> {
  const kept = recentOutput.get(child);
  await kept?.closed;
  const busy = /EADDRINUSE[^\n]*?:(\d+)/.exec(kept?.text ?? '');
  const port = busy ? stackPortList(ports).find((p) => p.port === Number(busy[1])) : undefined;
  if (port) {
    const refusal = await portsInUseRefusal([port], ports, process.env);
    return new StackRefusal([`${service} could not listen:`, ...refusal.lines.slice(0, -1)]);
  }
  return new Error(`${service} exited with ${child.exitCode ?? child.signalCode}; see ${shown(logOf(service))}`);
}

/**
 * Waits for the service's own /readyz on its admin port. Ready is said only of the process the
 * stack started: the ports were free before it started, and it must still be running when its
 * admin port answers 200 (a service that cannot bind its port exits at once).
 */
async function waitReady(service: Service, child: ChildProcess, ports: StackPorts, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  for (;;) {
    if (exited()) throw await exitReason(service, child, ports);
    if ((await readyzStatus(ports.admin[service])) === 200 && !exited()) return;
    if (Date.now() > deadline) {
      throw new Error(
        `${service} not ready after ${timeoutMs} ms (its /readyz on port ${ports.admin[service]}); see ${shown(logOf(service))}`,
      );
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function shutdown(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    // A stack refused before it started anything has nothing to stop.
    const started = children.size > 0 || cleanups.length > 0;
    if (started) say('stopping…');
    for (const t of restartTimers) clearTimeout(t);
    await Promise.all([...children.values()].map((c) => stopChild(c)));
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
    rmSync(BUILD, { recursive: true, force: true });
    if (started) say('stopped');
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
function startService(service: Service, env: NodeJS.ProcessEnv, ports: StackPorts): ChildProcess {
  const log = createWriteStream(logOf(service), { flags: 'a' });
  const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, join(BUILD, 'apps', service, 'src', 'main.js')], {
    cwd: ROOT,
    env: { ...env, ADMIN_PORT: String(ports.admin[service]) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const startedAt = Date.now();
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  keepRecentOutput(child);
  children.set(service, child);
  child.once('exit', (code, signal) => {
    if (stopping || !wasReady.has(service)) return;
    const delay =
      Date.now() - startedAt >= HEALTHY_RUN_MS
        ? RESTART_MIN_DELAY_MS
        : Math.min(RESTART_MAX_DELAY_MS, (restartDelays.get(service) ?? RESTART_MIN_DELAY_MS / 2) * 2);
    restartDelays.set(service, delay);
    say(`${service} exited (${code ?? signal}); restarting in ${delay} ms (see ${shown(logOf(service))})`);
    const timer = setTimeout(() => {
      restartTimers.delete(timer);
      if (stopping) return;
      const next = startService(service, env, ports);
      const at = Date.now();
      waitReady(service, next, ports).then(
        () => say(`${service} restarted (pid ${next.pid}), ready in ${Date.now() - at} ms`),
        (err: unknown) => say(`${service} restart: ${err instanceof Error ? err.message : String(err)}`),
      );
    }, delay);
    restartTimers.add(timer);
  });
  return child;
}

/** The services that have been ready once: one that dies after that is restarted; a failed first start stops the stack. */
const wasReady = new Set<Service>();

async function main(): Promise<void> {
  const smoke = process.argv.includes('--smoke');
  process.on('SIGINT', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));

  // Every port is checked before anything starts: a port another program holds (another copy of
  // the platform, a dev server on 3000) is named with the setting that moves it.
  const ports = stackPorts(process.env);
  const taken = await portsInUse(stackPortList(ports));
  if (taken.length > 0) throw await portsInUseRefusal(taken, ports, process.env);
  mkdirSync(LOGS, { recursive: true });

  const databaseUrl = await startPostgres(ports.postgres);
  const nats = await startNats(ports.nats);
  const natsUrl = nats.url;
  await migrateAll(databaseUrl);
  await setupNats(natsUrl, process.env.NATS_PREFIX ?? '', {}, natsAuthFor(nats.credentials('setup')));
  say('streams and consumers: ready');

  const urls = stackUrls(ports);
  const env: NodeJS.ProcessEnv = {
    NODE_ENV: 'development',
    LOG_LEVEL: 'info',
    ...process.env,
    DATABASE_URL: databaseUrl,
    NATS_URL: natsUrl,
    ...serviceUrlsEnv(ports, process.env),
    WEBHOOKS_ALLOW_PRIVATE_TARGETS: process.env.WEBHOOKS_ALLOW_PRIVATE_TARGETS ?? 'true',
    // The sandbox's course platform and media live on this machine.
    ALLOW_PRIVATE_TARGETS: process.env.ALLOW_PRIVATE_TARGETS ?? 'true',
  };
  compileServices(BUILD);
  for (const service of SERVICES) {
    const child = startService(service, { ...env, ...(service === 'sandbox' ? {} : nats.credentials(service)) }, ports);
    await waitReady(service, child, ports);
    wasReady.add(service);
    say(`${service.padEnd(8)} ready on ${urls[service]}   (pid ${child.pid}, logs: ${shown(logOf(service))})`);
  }

  const demo = await seedDemo(databaseUrl, urls, join(DATA, 'demo.json'));
  say('');
  say(`demo system user: ${demo.userId}`);
  say(`token (also in ${shown(join(DATA, 'demo.json'))}): ${demo.token}`);
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
    const lines = err instanceof StackRefusal ? err.lines : [err instanceof Error ? err.message : String(err)];
    for (const line of lines) process.stderr.write(`stack: ${line}\n`);
    void shutdown(1);
  });
}
