import { ChildProcess, spawn } from 'node:child_process';
import { chmodSync, createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrateSchema } from '@app/database';
import { killHard, NATS_SERVER_BIN, sleep, spawnTs, waitForLine } from '@app/testing';
import { ALL_SCHEMAS } from '../../../scripts/schemas';
import { setupNats } from '../../../scripts/nats-setup';
import { ADMIN_PORT_OFFSET } from '@app/server';
import { compileServicesBuild, spawnBuiltService } from '../../support/compiled-service';
import { freePort } from '../../support/platform';
import { Balancer, startBalancer } from '../../support/balancer';
import { BALANCED_SERVICES, PORT_VARIABLES } from '../../support/platform-env';

import type { ServiceName } from '../../support/platform-env';

export type { ServiceName };
export const SERVICES: ServiceName[] = ['sandbox', 'webhooks', 'gateway', 'queue', 'api'];

/** One running copy of a service: where it serves and where its admin listener (`/readyz`) is. */
interface Instance {
  port: number;
  adminPort: number;
}

/**
 * A restarted process: milliseconds from its start, and from the kill before it, until its readiness
 * answered 200; and how much of the first its main thread spent waiting for a CPU (Linux's
 * scheduler statistics; null where they cannot be read).
 */
export interface Restart {
  readyAfterStartMs: number;
  readyAfterKillMs: number;
  waitedForCpuMs: number | null;
}

/**
 * Milliseconds a process's main thread has spent runnable but waiting for a CPU: the second field of
 * /proc/<pid>/schedstat (nanoseconds). Null where it cannot be read (not Linux, or the process gone).
 */
export function waitedForCpuMs(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const waitedNs = Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[1]);
    return Number.isFinite(waitedNs) ? Math.round(waitedNs / 1e6) : null;
  } catch {
    return null;
  }
}

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
 *
 * With `replicas` above one, every service but the sandbox runs as that many processes, each on
 * ports of its own. Clients and the channel emulator's callbacks reach the api's and the gateway's
 * replicas through a round-robin balancer on the service's address (the cluster's Service), which
 * takes a killed replica out of its rotation until the new process is ready, as a failing readiness
 * check does.
 */
export class ChaosCluster {
  readonly ports: Record<ServiceName, number>;
  /** Each service's address: the balancer's for the api and the gateway run as several replicas. */
  readonly urls: Record<ServiceName, string>;
  readonly dir: string;
  databaseUrl = '';
  readonly natsUrl: string;
  /** Exits nobody asked for, per service. */
  readonly unexpectedExits: Record<string, number> = {};
  private readonly managed = new Map<string, Managed>();
  private env: Record<string, string> = {};
  /** Services run compiled, as in the container image (see compileServicesBuild); set by `start`. */
  private build = '';
  private readonly balancers: Partial<Record<ServiceName, Balancer>> = {};

  private constructor(
    ports: Record<ServiceName, number>,
    /** Each service's processes, in replica order (one for the sandbox). */
    private readonly instances: Record<ServiceName, Instance[]>,
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
    /** Processes per service (the sandbox always runs one); 1 when not given. */
    replicas?: number;
  }): Promise<ChaosCluster> {
    const replicas = opts.replicas ?? 1;
    const ports = {} as Record<ServiceName, number>;
    const instances = {} as Record<ServiceName, Instance[]>;
    for (const s of SERVICES) {
      ports[s] = await freePort();
      const count = s === 'sandbox' ? 1 : replicas;
      // One process serves on the service's port; a balanced service's replicas leave it to the balancer.
      const own = count > 1 && BALANCED_SERVICES.includes(s);
      instances[s] = [];
      for (let i = 0; i < count; i++) {
        const port = i === 0 && !own ? ports[s] : await freePort();
        // The sandbox serves its readiness on its port + ADMIN_PORT_OFFSET; the others take ADMIN_PORT.
        instances[s].push({ port, adminPort: s === 'sandbox' ? port + ADMIN_PORT_OFFSET : await freePort() });
      }
    }
    const cluster = new ChaosCluster(ports, instances, await freePort(), await freePort(), opts.serviceEnv);
    try {
      cluster.build = compileServicesBuild();
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
        if (instances[s].length > 1 && BALANCED_SERVICES.includes(s)) {
          cluster.balancers[s] = await startBalancer(
            instances[s].map((r) => `http://127.0.0.1:${r.port}`),
            ports[s],
          );
          // In the rotation once ready (waitReady), as a pod behind its Service.
          instances[s].forEach((_, i) => cluster.balancers[s]!.setReady(i, false));
        }
        for (let i = 0; i < instances[s].length; i++) {
          cluster.startService(s, i);
          await cluster.waitReady(s, 60_000, i);
        }
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
    // Both streams into one file: neither may end it while the other still writes.
    child.stdout?.pipe(log, { end: false });
    child.stderr?.pipe(log, { end: false });
    child.once('close', () => log.end());
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

  /** How many processes run the service. */
  replicaCount(name: ServiceName): number {
    return this.instances[name].length;
  }

  /** The address of one replica itself, past any balancer. */
  replicaUrl(name: ServiceName, replica = 0): string {
    return `http://127.0.0.1:${this.instances[name][replica].port}`;
  }

  /** The name a replica's process (and log file) goes by: the service's own when it runs once. */
  private processName(name: ServiceName, replica: number): string {
    return this.instances[name].length > 1 ? `${name}-${replica}` : name;
  }

  startService(name: ServiceName, replica = 0): void {
    const { port, adminPort } = this.instances[name][replica];
    this.run(
      this.processName(name, replica),
      () =>
        spawnBuiltService(this.build, name, {
          ...this.env,
          ...this.serviceEnv[name],
          [PORT_VARIABLES[name]]: String(port),
          ADMIN_PORT: String(adminPort),
        }),
      () => this.startService(name, replica),
    );
  }

  /** Milliseconds from the replica's (last) start until its readiness answers 200. */
  async waitReady(name: ServiceName, timeoutMs = 60_000, replica = 0): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    const which = this.processName(name, replica);
    for (;;) {
      if (await this.isReady(name, replica)) {
        this.balancers[name]?.setReady(replica, true);
        return Date.now() - (this.managed.get(which)?.spawnedAt ?? 0);
      }
      if (Date.now() > deadline) {
        throw new Error(`${which} not ready within ${timeoutMs} ms; see ${this.logFile(which)}`);
      }
      await sleep(50);
    }
  }

  async isReady(name: ServiceName, replica = 0): Promise<boolean> {
    try {
      const res = await fetch(`http://127.0.0.1:${this.instances[name][replica].adminPort}/readyz`, {
        signal: AbortSignal.timeout(2500),
      });
      await res.arrayBuffer();
      return res.status === 200;
    } catch {
      return false;
    }
  }

  /** Waits until every replica of every service is ready; milliseconds it took. */
  async waitAllReady(timeoutMs = 60_000): Promise<number> {
    const started = Date.now();
    for (const s of SERVICES) {
      for (let i = 0; i < this.instances[s].length; i++) {
        await this.waitReady(s, Math.max(1000, timeoutMs - (Date.now() - started)), i);
      }
    }
    return Date.now() - started;
  }

  /**
   * SIGKILL one replica, then a new process for it at once: how long it took to be ready. Its
   * balancer stops sending it requests from the kill until it is ready again.
   */
  async killAndRestart(name: ServiceName, replica = 0): Promise<Restart> {
    const killedAt = Date.now();
    await this.halt(this.processName(name, replica), 'SIGKILL');
    this.balancers[name]?.setReady(replica, false);
    this.startService(name, replica);
    const readyAfterStartMs = await this.waitReady(name, 60_000, replica);
    return {
      readyAfterStartMs,
      readyAfterKillMs: Date.now() - killedAt,
      waitedForCpuMs: waitedForCpuMs(this.managed.get(this.processName(name, replica))?.child?.pid),
    };
  }

  async stop(): Promise<void> {
    const names = [...this.managed.keys()].filter((n) => n !== 'postgres' && n !== 'nats');
    await Promise.all(names.map((n) => this.halt(n, 'SIGKILL')));
    for (const b of Object.values(this.balancers)) await b.close();
    await this.halt('nats', 'SIGTERM');
    await this.halt('postgres', 'SIGTERM');
    if (!process.env.CHAOS_KEEP_LOGS) rmSync(this.dir, { recursive: true, force: true });
  }
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}
