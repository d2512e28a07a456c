import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { killHard, spawnTs, waitFor, waitForLine } from '@app/testing';
import { Platform, ServiceName, startPlatform } from '../support/platform';

const SERVICES: ServiceName[] = ['api', 'gateway', 'queue', 'webhooks', 'sandbox'];

describe('every service boots and reports health', () => {
  let platform: Platform;

  beforeAll(async () => {
    platform = await startPlatform({ suite: 'services', services: SERVICES });
  });

  afterAll(async () => {
    await platform?.stop();
  });

  it.each(SERVICES)('%s answers liveness, readiness and metrics', async (name) => {
    const live = await fetch(`${platform.urls[name]}/healthz`);
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${platform.urls[name]}/readyz`);
    expect(ready.status).toBe(200);
    const metrics = await fetch(`${platform.urls[name]}/metrics`);
    expect(metrics.status).toBe(200);
    // In one test process every app shares the default registry; each real process labels its own.
    expect(await metrics.text()).toMatch(/^process_cpu_user_seconds_total\{service="[a-z]+"\} /m);
  });

  it('answers unknown routes with an RFC 9457 problem, never a stack trace', async () => {
    const res = await fetch(`${platform.urls.api}/api/v1/nothing-here`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const body = await res.json();
    expect(body).toMatchObject({ type: '/problems/not-found', status: 404, title: 'Not found' });
    expect(JSON.stringify(body)).not.toMatch(/at .*\.ts:\d+/);
  });
});

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

const hasNatsServer = (() => {
  try {
    require('node:child_process').execFileSync('nats-server', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** A private nats-server, so that stopping it does not disturb the suites running beside this one. */
(hasNatsServer ? describe : describe.skip)('readiness follows NATS', () => {
  let nats: ChildProcess | undefined;
  let service: ChildProcess | undefined;
  let dir: string;

  afterAll(async () => {
    if (service) await killHard(service);
    if (nats) await killHard(nats);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the queue service reports not-ready while NATS is stopped, and ready again after it returns', async () => {
    dir = mkdtempSync(join(tmpdir(), 'nats-'));
    const natsPort = await freePort();
    const startNats = () =>
      spawn('nats-server', ['-a', '127.0.0.1', '-p', String(natsPort), '-js', '-sd', dir], { stdio: 'ignore' });
    nats = startNats();
    const httpPort = await freePort();
    service = spawnTs('apps/queue/src/main.ts', {
      NATS_URL: `nats://127.0.0.1:${natsPort}`,
      QUEUE_PORT: String(httpPort),
      LOG_LEVEL: 'info',
    });
    await waitForLine(service, /Nest application successfully started/);
    const ready = () => fetch(`http://127.0.0.1:${httpPort}/readyz`).then((r) => r.status);
    await waitFor(async () => (await ready()) === 200, 10_000, 'ready');

    await killHard(nats);
    await waitFor(async () => (await ready()) === 503, 10_000, 'not ready without NATS');
    const body = (await (await fetch(`http://127.0.0.1:${httpPort}/readyz`)).json()) as {
      checks: { nats: { status: string } };
    };
    expect(body.checks.nats.status).toBe('down');
    // Liveness is unaffected: the process itself is fine.
    expect((await fetch(`http://127.0.0.1:${httpPort}/healthz`)).status).toBe(200);

    nats = startNats();
    await waitFor(async () => (await ready()) === 200, 15_000, 'ready again');
  });

  it('a service with a bad variable stops at start with a message naming it', async () => {
    const bad = spawnTs('apps/queue/src/main.ts', { NATS_URL: 'http://nope', QUEUE_PORT: '70000' });
    let stderr = '';
    bad.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => bad.once('exit', resolve));
    expect(code).toBe(78);
    expect(stderr).toContain('NATS_URL');
    expect(stderr).toContain('QUEUE_PORT');
  });
});
