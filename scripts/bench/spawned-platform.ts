import { ADMIN_PORT_OFFSET } from '@app/server';
// The services a benchmark measures, each in its own process (as deployed), on free loopback ports
// with the run's own database and stream prefix; stopped and removed afterwards.
import { ChildProcess } from 'node:child_process';
import { migrateSchema } from '@app/database';
import { killHard, startTestInfra, TestInfra } from '@app/testing';
import { Balancer, startBalancer } from '../../test/support/balancer';
import { compileServicesBuild, spawnBuiltService } from '../../test/support/compiled-service';
import {
  BALANCED_SERVICES,
  freePort,
  platformEnv,
  PORT_VARIABLES,
  Replicas,
  ServiceName,
} from '../../test/support/platform-env';
import { ALL_SCHEMAS } from '../schemas';
import { BenchOptions, cpuMs, writeSyscalls } from './report';
import { peakRssMiB } from './built-services';

export interface SpawnedPlatform {
  infra: TestInfra;
  urls: Record<ServiceName, string>;
  env: Record<string, string>;
  /** CPU milliseconds each service's processes have used so far (Linux; NaN elsewhere). */
  cpuMs(): Partial<Record<ServiceName, number>>;
  /** Write system calls each service's processes have made so far (Linux; NaN elsewhere). */
  writes(): Partial<Record<ServiceName, number>>;
  /** Each service's largest resident set so far, in MiB (its processes' peaks summed; Linux; NaN elsewhere). */
  peakRssMib(): Partial<Record<ServiceName, number>>;
  /** CPU milliseconds each process has used so far, by replica (`api#0`, `api#1`, ...). */
  replicaCpuMs(): Record<string, number>;
  /** The round-robin balancer in front of the api's or the gateway's replicas, when there are several. */
  balancers: Partial<Record<ServiceName, Balancer>>;
  /** Starts `count` more queue processes, each on a port of its own, and waits until their workers run. */
  addQueueReplicas(count: number): Promise<void>;
  stop(): Promise<void>;
}

const STARTUP_MS = 180_000;

/**
 * The services compiled (swc, as the image does; one build shared by every benchmark and suite of
 * the same sources) and run as the image runs them, with SERVICE_NODE_FLAGS (its heap limits
 * included): run from source through the on-the-fly TypeScript loader and without those flags,
 * they had V8's default heap, and their garbage collection was not the deployment's.
 */
const servicesBuild = (): string => compileServicesBuild();

/** A process's peak resident set in MiB; NaN when it cannot be read (ended, or no /proc). */
function peakRssOf(pid: number | undefined): number {
  try {
    return pid === undefined ? NaN : peakRssMiB(pid);
  } catch {
    return NaN;
  }
}

async function waitReady(name: string, url: string, child: ChildProcess, isReady: (body: unknown) => boolean) {
  const deadline = Date.now() + STARTUP_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode} while starting`);
    try {
      const res = await fetch(`${url}/readyz`);
      if (res.ok && isReady(await res.json())) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${name} not ready within ${STARTUP_MS} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** A queue is ready to measure once its WhatsApp worker runs, not merely once it listens. */
function whatsappRunning(body: unknown): boolean {
  const b = body as { checks?: { dispatch?: { channels?: { whatsapp?: { state?: string } } } } };
  return b.checks?.dispatch?.channels?.whatsapp?.state === 'running';
}

/**
 * Starts `services` (the sandbox first, the api last) as child processes; `replicas` runs a service
 * as several processes, each on ports of its own, the api's and the gateway's behind a round-robin
 * balancer (in this process) at `urls.api` / `urls.gateway`, where the others and the sandbox reach them.
 */
export async function spawnPlatform(
  opts: BenchOptions,
  o: { suite: string; services: ServiceName[]; env?: Record<string, string>; replicas?: Replicas },
): Promise<SpawnedPlatform> {
  process.env.NATS_URL ??= opts.natsUrl;
  process.env.DATABASE_URL ??= opts.databaseUrl;
  const infra = await startTestInfra({
    suite: o.suite,
    database: o.services.some((s) => s !== 'sandbox' && s !== 'queue'),
    autovacuum: true,
  });
  const { urls, env, replicaPorts } = await platformEnv(infra, { LOG_LEVEL: 'warn', ...o.env }, o.replicas);
  const children: ChildProcess[] = [];
  const names = new Map<ChildProcess, ServiceName>();
  const labels = new Map<ChildProcess, string>();
  const balancers: Partial<Record<ServiceName, Balancer>> = {};
  /** `read(pid)` summed over each service's processes. */
  const perService = (read: (pid: number | undefined) => number) => {
    const total: Partial<Record<ServiceName, number>> = {};
    for (const [child, name] of names) total[name] = (total[name] ?? 0) + read(child.pid);
    return total;
  };
  const cpu = () => perService(cpuMs);
  const writes = () => perService(writeSyscalls);
  const peakRss = () => perService(peakRssOf);
  const replicaCpu = () => Object.fromEntries([...labels].map(([child, label]) => [label, cpuMs(child.pid)]));
  const stop = async () => {
    for (const c of children.reverse()) await killHard(c);
    for (const b of Object.values(balancers)) await b.close();
    await infra.stop();
  };
  const started = (name: ServiceName) => [...names.values()].filter((n) => n === name).length;
  // Every replica gets its own port (the variable its service reads) and admin port.
  const start = async (name: ServiceName, port: string, adminPort?: number): Promise<void> => {
    // Readiness is on the admin listener: its own free port (the sandbox's is its port + the offset).
    adminPort ??= name === 'sandbox' ? Number(port) + ADMIN_PORT_OFFSET : await freePort();
    const label = `${name}#${started(name)}`;
    const child = spawnBuiltService(servicesBuild(), name, {
      ...env,
      ADMIN_PORT: String(adminPort),
      [PORT_VARIABLES[name]]: port,
    });
    // Logs are drained so that a full pipe never blocks the service; the tail explains a failed start.
    let tail = '';
    const keep = (d: Buffer) => (tail = (tail + d.toString()).slice(-2000));
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    child.once('exit', (code) => code !== null && code !== 0 && process.stderr.write(`${name}: ${tail}\n`));
    children.push(child);
    names.set(child, name);
    labels.set(child, label);
    await waitReady(name, `http://127.0.0.1:${adminPort}`, child, name === 'queue' ? whatsappRunning : () => true);
  };
  const addQueueReplicas = async (count: number) => {
    await Promise.all(Array.from({ length: count }, async () => start('queue', String(await freePort()))));
  };
  try {
    if (o.services.some((s) => s !== 'sandbox' && s !== 'queue')) {
      for (const def of ALL_SCHEMAS) await migrateSchema(infra.databaseUrl, def);
    }
    const order: ServiceName[] = ['sandbox', 'webhooks', 'gateway', 'queue', 'api'];
    for (const name of order.filter((n) => o.services.includes(n))) {
      const instances = replicaPorts[name];
      if (instances.length > 1 && BALANCED_SERVICES.includes(name)) {
        balancers[name] = await startBalancer(
          instances.map((r) => `http://127.0.0.1:${r.port}`),
          Number(new URL(urls[name]).port),
        );
      }
      // Replicas of one service start together, as a Deployment's pods do.
      await Promise.all(
        instances.map((r) => start(name, String(r.port), name === 'sandbox' ? undefined : r.adminPort)),
      );
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    infra,
    urls,
    env,
    cpuMs: cpu,
    writes,
    peakRssMib: peakRss,
    replicaCpuMs: replicaCpu,
    balancers,
    addQueueReplicas,
    stop,
  };
}
