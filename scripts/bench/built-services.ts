// Services as deploy/Dockerfile runs them (built, with the services' Node flags) for benchmarks
// that start them in their own processes, and the keep-alive load they are measured under.
import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import { SERVICE_NODE_FLAGS } from '@app/config';
import { compileServicesBuild } from '../../test/support/compiled-service';
import { httpLoad, LoadResult } from './http-load';

const REPO_ROOT = join(__dirname, '..', '..');
/** Keep-alive connections of a load run. */
const CONNECTIONS = 50;

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function withDatabase(url: string, db: string): string {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}

/** The peak resident set of a process so far (VmHWM), in MiB. */
export function peakRssMiB(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
}

export async function waitReady(url: string, child: ChildProcess, stderr: () => string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`server exited (${child.exitCode}): ${stderr().slice(-2000)}`);
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(`server not ready at ${url}: ${stderr().slice(-2000)}`);
}

export function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
  });
}

/**
 * `CONNECTIONS` keep-alive connections, each sending one request after another for `seconds`;
 * `expect` is the status of an accepted send (the api's 201, the gateway's 202).
 */
export function load(
  url: string,
  auth: string,
  seconds: number,
  body: (i: number) => string,
  expect = 201,
): Promise<LoadResult> {
  const path = new URL(url).pathname;
  return httpLoad(url, {
    connections: CONNECTIONS,
    seconds,
    expect,
    next: (i) => {
      const payload = body(i);
      return {
        method: 'POST',
        path,
        headers: {
          authorization: auth,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
        },
        body: payload,
      };
    },
  });
}

/** The services compiled as the image runs them (the build shared by every benchmark and suite). */
export function build(): string {
  return compileServicesBuild();
}

/**
 * A service as deploy/Dockerfile runs it (built, with the services' Node flags), on free ports,
 * ready once its admin listener answers `/readyz`.
 */
export async function startBuilt(
  service: 'api' | 'gateway',
  env: Record<string, string>,
): Promise<{ child: ChildProcess; port: number }> {
  const main = join(build(), 'apps', service, 'src', 'main.js');
  if (!existsSync(main)) throw new Error(`${main} missing after the build`);
  const port = await freePort();
  const adminPort = await freePort();
  let stderr = '';
  const child = spawn(
    process.execPath,
    [...(process.env.BENCH_API_NODE_ARGS?.split(' ').filter(Boolean) ?? SERVICE_NODE_FLAGS), main],
    {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        NODE_ENV: 'development',
        [service === 'api' ? 'API_PORT' : 'GATEWAY_PORT']: String(port),
        ADMIN_PORT: String(adminPort),
        LOG_LEVEL: 'warn',
        RATE_LIMIT_PER_SECOND: '1000000',
        RATE_LIMIT_BURST: '1000000',
        HOUSEKEEPING_INTERVAL_MS: '0',
        TEMPLATE_SYNC_INTERVAL_MS: '0',
        ...env,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-8000)));
  await waitReady(`http://127.0.0.1:${adminPort}/readyz`, child, () => stderr);
  return { child, port };
}
