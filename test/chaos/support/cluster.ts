import { ChildProcess, spawn } from 'node:child_process';
import { chmodSync, createWriteStream, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrateSchema } from '@app/database';
import { killHard, NATS_SERVER_BIN, REPO_ROOT, sleep, spawnTs, waitForLine } from '@app/testing';
import { ALL_SCHEMAS } from '../../../scripts/schemas';
import { setupNats } from '../../../scripts/nats-setup';
import { ADMIN_PORT_OFFSET } from '@app/server';
import { SERVICE_NODE_FLAGS } from '@app/config';
import { compileServices } from '../../../scripts/stack';
import { freePort } from '../../support/platform';

import type { ServiceName } from '../../support/platform-env';

export type { ServiceName };
export const SERVICES: ServiceName[] = ['sandbox', 'webhooks', 'gateway', 'queue', 'api'];

/** A process the cluster runs: its current child, when it was spawned, and whether we stopped it. */
interface Managed {
  child?: ChildProcess;
  spawnedAt: number;
  expectExit: boolean;
}

/**
 * The whole platform as real processes on free ports, with its own PostgreSQL (embedded) and its own
 * `nats-server -js`, so that stopping them disturbs nobody else. A service that exits on its own is
 * started again, as Kubernetes would, and counted.
 */
export class ChaosCluster {
  readonly ports: Record<ServiceName, number>;
  readonly urls: Record<ServiceName, string>;
  readonly dir: string;
  databaseUrl = '';
  readonly natsUrl: string;
  /** Exits nobody asked for, per service. */
  readonly unexpectedExits: Record<string, number> = {};
  private readonly managed = new Map<string, Managed>();
  private env: Record<string, string> = {};
  /** Services run compiled, as in the container image (see compileServices). */
  private readonly build = newBuildDir();

  private constructor(
    ports: Record<ServiceName, number>,
    private readonly pgPort: number,
    private readonly natsPort: number,
    private readonly serviceEnv: Partial<Record<ServiceName, Record<string, string>>>,
  ) {
    this.ports = ports;
    this.urls = Object.fromEntries(Object.entries(ports).map(([k, p]) => [k, `http://127.0.0.1:${p}`])) as Record<
      ServiceName,
      string
    >;
    this.dir = mkdtempSync(join(tmpdir(), 'chaos-'));
    // Run as root, the embedded Postgres runs as its own user, which must reach its data directory.
    chmodSync(this.dir, 0o755);
    mkdirSync(join(this.dir, 'logs'));
    this.natsUrl = `nats://127.0.0.1:${natsPort}`;
  }

  /** Starts Postgres and NATS, applies migrations and streams, then every service (sandbox first). */
  static async start(opts: {
    serviceEnv: Partial<Record<ServiceName, Record<string, string>>>;
    ackWaitMs: number;
  }): Promise<ChaosCluster> {
    const ports = {} as Record<ServiceName, number>;
    for (const s of SERVICES) ports[s] = await freePort();
    const cluster = new ChaosCluster(ports, await freePort(), await freePort(), opts.serviceEnv);
    try {
      compileServices(cluster.build);
      await cluster.startPostgres();
      await cluster.startNats();
      for (const def of ALL_SCHEMAS) await migrateSchema(cluster.databaseUrl, def);
      await setupNats(cluster.natsUrl, '', { ackWaitMs: opts.ackWaitMs });
      cluster.env = {
        NODE_ENV: 'test',
        LOG_LEVEL: 'warn',
        DATABASE_URL: cluster.databaseUrl,
        NATS_URL: cluster.natsUrl,
        NATS_PREFIX: '',
        API_PORT: String(ports.api),
        GATEWAY_PORT: String(ports.gateway),
        QUEUE_PORT: String(ports.queue),
        WEBHOOKS_PORT: String(ports.webhooks),
        SANDBOX_PORT: String(ports.sandbox),
        API_PUBLIC_URL: cluster.urls.api,
        GATEWAY_PUBLIC_URL: cluster.urls.gateway,
        SANDBOX_URL: cluster.urls.sandbox,
        WHATSAPP_GRAPH_URL: cluster.urls.sandbox,
        TELEGRAM_API_URL: `${cluster.urls.sandbox}/telegram`,
        MAX_API_URL: `${cluster.urls.sandbox}/max`,
        // The suite's webhook receiver, course platform and media listen on loopback over plain http.
        WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true',
        ALLOW_PRIVATE_TARGETS: 'true',
      };
      for (const s of SERVICES) {
        cluster.startService(s);
        await cluster.waitReady(s, 60_000);
      }
    } catch (err) {
      await cluster.stop();
      throw err;
    }
    return cluster;
  }

  logFile(name: string): string {
    return join(this.dir, 'logs', `${name}.log`);
  }

  private run(name: string, spawnIt: () => ChildProcess, restart?: () => void): ChildProcess {
    const child = spawnIt();
    const log = createWriteStream(this.logFile(name), { flags: 'a' });
    child.stdout?.pipe(log);
    child.stderr?.pipe(log);
    const entry: Managed = { child, spawnedAt: Date.now(), expectExit: false };
    this.managed.set(name, entry);
    child.once('exit', () => {
      if (entry.expectExit || !restart) return;
      this.unexpectedExits[name] = (this.unexpectedExits[name] ?? 0) + 1;
      setTimeout(() => this.managed.get(name) === entry && restart(), 500);
    });
    return child;
  }

  private async halt(name: string, signal: NodeJS.Signals): Promise<void> {
    const entry = this.managed.get(name);
    const child = entry?.child;
    if (!entry || !child) return;
    entry.expectExit = true;
    if (signal === 'SIGKILL') return killHard(child);
    if (child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      child.once('exit', () => (clearTimeout(timer), resolve()));
      child.kill(signal);
    });
  }

  async startPostgres(): Promise<void> {
    const child = this.run('postgres', () =>
      spawnTs('test/chaos/support/postgres-main.ts', {}, [join(this.dir, 'postgres'), String(this.pgPort)]),
    );
    const line = await waitForLine(child, /^postgres ready /, 120_000);
    this.databaseUrl = line.replace(/^postgres ready /, '').trim();
  }

  /** A fast shutdown, as an operator (or a failing node) stops the database. */
  stopPostgres(): Promise<void> {
    return this.halt('postgres', 'SIGTERM');
  }

  async startNats(): Promise<void> {
    this.run('nats', () =>
      spawn(NATS_SERVER_BIN, ['-a', '127.0.0.1', '-p', String(this.natsPort), '-js', '-sd', join(this.dir, 'nats')], {
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    const deadline = Date.now() + 20_000;
    while (!(await portOpen(this.natsPort))) {
      if (Date.now() > deadline) throw new Error(`nats-server did not listen; see ${this.logFile('nats')}`);
      await sleep(50);
    }
  }

  stopNats(): Promise<void> {
    return this.halt('nats', 'SIGTERM');
  }

  startService(name: ServiceName): void {
    this.run(
      name,
      () =>
        spawn(process.execPath, [...SERVICE_NODE_FLAGS, join(this.build, 'apps', name, 'src', 'main.js')], {
          cwd: REPO_ROOT,
          env: { ...process.env, ...this.env, ...this.serviceEnv[name] },
          stdio: ['ignore', 'pipe', 'pipe'],
        }),
      () => this.startService(name),
    );
  }

  /** Milliseconds from the service's (last) start until its readiness answers 200. */
  async waitReady(name: ServiceName, timeoutMs = 60_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (await this.isReady(name)) return Date.now() - (this.managed.get(name)?.spawnedAt ?? 0);
      if (Date.now() > deadline) {
        throw new Error(`${name} not ready within ${timeoutMs} ms; see ${this.logFile(name)}`);
      }
      await sleep(50);
    }
  }

  async isReady(name: ServiceName): Promise<boolean> {
    try {
      // Readiness is served on the admin listener (the public port + ADMIN_PORT_OFFSET by default).
      const admin = `http://127.0.0.1:${Number(new URL(this.urls[name]).port) + ADMIN_PORT_OFFSET}`;
      const res = await fetch(`${admin}/readyz`, { signal: AbortSignal.timeout(2500) });
      await res.arrayBuffer();
      return res.status === 200;
    } catch {
      return false;
    }
  }

  /** Waits until every service is ready; milliseconds it took. */
  async waitAllReady(timeoutMs = 60_000): Promise<number> {
    const started = Date.now();
    for (const s of SERVICES) await this.waitReady(s, Math.max(1000, timeoutMs - (Date.now() - started)));
    return Date.now() - started;
  }

  /** SIGKILL, then a new process at once: milliseconds from its start until it is ready. */
  async killAndRestart(name: ServiceName): Promise<{ readyAfterStartMs: number; readyAfterKillMs: number }> {
    const killedAt = Date.now();
    await this.halt(name, 'SIGKILL');
    this.startService(name);
    const readyAfterStartMs = await this.waitReady(name, 60_000);
    return { readyAfterStartMs, readyAfterKillMs: Date.now() - killedAt };
  }

  async stop(): Promise<void> {
    const names = [...this.managed.keys()].filter((n) => n !== 'postgres' && n !== 'nats');
    await Promise.all(names.map((n) => this.halt(n, 'SIGKILL')));
    await this.halt('nats', 'SIGTERM');
    await this.halt('postgres', 'SIGTERM');
    rmSync(this.build, { recursive: true, force: true });
    if (!process.env.CHAOS_KEEP_LOGS) rmSync(this.dir, { recursive: true, force: true });
  }
}

function newBuildDir(): string {
  const cache = join(REPO_ROOT, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  return mkdtempSync(join(cache, 'chaos-build-'));
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}
