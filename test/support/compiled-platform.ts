import { ChildProcess } from 'node:child_process';
import { ADMIN_PORT_OFFSET } from '@app/server';
import { killHard, startTestInfra, TestInfra, waitFor } from '@app/testing';
import { migratedTemplate } from './migrated-template';
import { compileServicesBuild, spawnBuiltService } from './compiled-service';
import { platformEnv, ServiceName } from './platform-env';

/** How much of each process's output is kept: enough for its last requests and why it died. */
const LOG_KEPT = 200_000;

/**
 * The services as deployed, on a suite's own database and streams: compiled, each its own process
 * with the production node flags and heap (see spawnBuiltService), so that a regression that
 * exhausts a heap really kills the process.
 */
export interface CompiledPlatform {
  infra: TestInfra;
  services: ServiceName[];
  urls: Record<ServiceName, string>;
  adminUrls: Record<ServiceName, string>;
  child(name: ServiceName): ChildProcess;
  /** The tail of what the process wrote (stdout and stderr together), its current run's and before. */
  log(name: ServiceName): string;
  /** The processes no longer running: each with its exit code or signal and its last log lines. */
  exited(): { name: ServiceName; exit: number | string; log: string }[];
  /** Every process still runs (else its exit and last log lines) and answers its `/healthz`. */
  expectAllServing(): Promise<void>;
  /**
   * Starts again each process that exited or does not answer its `/healthz` within a few seconds,
   * so that the next test starts on a platform that serves; the names of those started again.
   */
  restartUnhealthy(): Promise<ServiceName[]>;
  stop(): Promise<void>;
}

/** Compiles the services and starts `services` in that order, each once ready on its admin port. */
export async function startCompiledPlatform(opts: {
  suite: string;
  services: ServiceName[];
  env?: Record<string, string>;
}): Promise<CompiledPlatform> {
  const build = compileServicesBuild();
  const children = new Map<ServiceName, ChildProcess>();
  const logs: Partial<Record<ServiceName, string>> = {};
  let infra: TestInfra | undefined;

  const stop = async () => {
    for (const child of children.values()) await killHard(child);
    await infra?.stop();
  };

  try {
    infra = await startTestInfra({ suite: opts.suite, template: await migratedTemplate() });
    const env = await platformEnv(infra, opts.env);
    const urls = env.urls;
    // The sandbox takes no ADMIN_PORT: its admin listener is on its port + the offset.
    const adminUrls = {
      ...env.adminUrls,
      sandbox: `http://127.0.0.1:${Number(new URL(urls.sandbox).port) + ADMIN_PORT_OFFSET}`,
    };

    const start = async (name: ServiceName) => {
      const child = spawnBuiltService(build, name, { ...env.env, ADMIN_PORT: String(env.adminPorts[name]) });
      logs[name] ??= '';
      const keep = (d: Buffer) => (logs[name] = (logs[name] + d.toString()).slice(-LOG_KEPT));
      child.stdout?.on('data', keep);
      child.stderr?.on('data', keep);
      children.set(name, child);
      await waitFor(
        async () => {
          if (child.exitCode !== null) throw new Error(`${name} exited while starting: ${logs[name]?.slice(-2000)}`);
          return (await fetch(`${adminUrls[name]}/readyz`).catch(() => null))?.status === 200;
        },
        60_000,
        `${name} ready`,
        250,
      );
    };
    for (const name of opts.services) await start(name);

    const running = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;
    const answers = async (name: ServiceName) =>
      (await fetch(`${urls[name]}/healthz`, { signal: AbortSignal.timeout(5_000) }).catch(() => null))?.status === 200;

    const log = (name: ServiceName) => logs[name] ?? '';
    const exited = () =>
      opts.services.flatMap((name) => {
        const child = children.get(name) as ChildProcess;
        if (running(child)) return [];
        return [{ name, exit: (child.exitCode ?? child.signalCode) as number | string, log: log(name).slice(-3000) }];
      });

    return {
      infra,
      services: opts.services,
      urls,
      adminUrls,
      child: (name) => children.get(name) as ChildProcess,
      log,
      exited,
      async expectAllServing() {
        expect(exited()).toEqual([]);
        for (const name of opts.services) {
          expect({ name, live: (await fetch(`${urls[name]}/healthz`)).status }).toEqual({ name, live: 200 });
        }
      },
      async restartUnhealthy() {
        const restarted: ServiceName[] = [];
        for (const name of opts.services) {
          const child = children.get(name) as ChildProcess;
          if (running(child) && (await answers(name))) continue;
          const why = running(child) ? 'stopped answering' : 'exited';
          await killHard(child);
          logs[name] += `\n--- started again by the test: it had ${why} ---\n`;
          await start(name);
          restarted.push(name);
        }
        return restarted;
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
