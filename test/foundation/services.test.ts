import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrateSchema } from '@app/database';
import { killHard, spawnTs, startTestInfra, TestInfra, waitFor, waitForLine } from '@app/testing';
import { ALL_SCHEMAS } from '../../scripts/schemas';
import { freePort, Platform, ServiceName, startPlatform } from '../support/platform';

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
    const ready = await fetch(`${platform.adminUrls[name]}/readyz`);
    expect(ready.status).toBe(200);
    const metrics = await fetch(`${platform.adminUrls[name]}/metrics`);
    expect(metrics.status).toBe(200);
    // In one test process every app shares the default registry; each real process labels its own.
    expect(await metrics.text()).toMatch(/^process_cpu_user_seconds_total\{service="[a-z]+"\} /m);
  });

  it.each(SERVICES)('%s serves readiness and metrics only on its admin port, not on the public one', async (name) => {
    const prefix = name === 'api' ? '/api' : '';
    for (const path of ['/readyz', '/metrics', `${prefix}/readyz`, `${prefix}/metrics`]) {
      const res = await fetch(`${platform.urls[name]}${path}`);
      expect(res.status).toBe(404);
      expect(await res.text()).not.toContain('process_cpu');
    }
    const admin = await fetch(`${platform.adminUrls[name]}/nothing`);
    expect(admin.status).toBe(404);
    expect(admin.headers.get('content-type')).toMatch(/^application\/problem\+json/);
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
  const services: ChildProcess[] = [];
  let db: TestInfra | undefined;
  let dir: string;

  afterAll(async () => {
    await Promise.all(services.map((s) => killHard(s)));
    if (nats) await killHard(nats);
    await db?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('api, gateway, queue and webhooks report not-ready while NATS is stopped, and ready again after it returns', async () => {
    dir = mkdtempSync(join(tmpdir(), 'nats-'));
    const natsPort = await freePort();
    const startNats = () =>
      spawn('nats-server', ['-a', '127.0.0.1', '-p', String(natsPort), '-js', '-sd', dir], { stdio: 'ignore' });
    nats = startNats();
    db = await startTestInfra({ suite: 'readiness', nats: false });
    for (const def of ALL_SCHEMAS) await migrateSchema(db.databaseUrl, def);
    const ports = {
      api: await freePort(),
      gateway: await freePort(),
      queue: await freePort(),
      webhooks: await freePort(),
    };
    const adminPorts: Record<string, number> = {};
    for (const name of Object.keys(ports)) adminPorts[name] = await freePort();
    const env: Record<string, string> = {
      NATS_URL: `nats://127.0.0.1:${natsPort}`,
      DATABASE_URL: db.databaseUrl,
      LOG_LEVEL: 'info',
      API_PORT: String(ports.api),
      GATEWAY_PORT: String(ports.gateway),
      QUEUE_PORT: String(ports.queue),
      WEBHOOKS_PORT: String(ports.webhooks),
    };
    const names = Object.keys(ports) as (keyof typeof ports)[];
    for (const name of names) {
      services.push(spawnTs(`apps/${name}/src/main.ts`, { ...env, ADMIN_PORT: String(adminPorts[name]) }));
    }
    await Promise.all(services.map((s) => waitForLine(s, /Nest application successfully started/, 30_000)));
    const ready = (name: keyof typeof ports) =>
      fetch(`http://127.0.0.1:${adminPorts[name]}/readyz`).then((r) => r.status);
    const all = async (status: number) => (await Promise.all(names.map(ready))).every((s) => s === status);
    await waitFor(() => all(200), 15_000, 'all ready');

    await killHard(nats);
    await waitFor(() => all(503), 10_000, 'not ready without NATS');
    for (const name of names) {
      const text = await (await fetch(`http://127.0.0.1:${adminPorts[name]}/readyz`)).text();
      const body = JSON.parse(text) as { checks: { nats: Record<string, unknown> } };
      // The failing dependency is named, its error text (addresses, driver messages) is not.
      expect(body.checks.nats).toEqual({ status: 'down' });
      expect(text).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|not connected|timed out/i);
      // Liveness is unaffected: the process itself is fine.
      expect((await fetch(`http://127.0.0.1:${ports[name]}/healthz`)).status).toBe(200);
    }

    nats = startNats();
    await waitFor(() => all(200), 20_000, 'ready again');

    // Graceful shutdown: SIGTERM runs the shutdown hooks (stop taking work, drain NATS, close
    // Postgres), after which Nest re-raises the signal, as Unix services conventionally end.
    const exits = services.map(
      (s) =>
        new Promise<string | null>((resolve) => s.once('exit', (code, signal) => resolve(signal ?? `code ${code}`))),
    );
    const sent = Date.now();
    for (const s of services) s.kill('SIGTERM');
    expect(await Promise.all(exits)).toEqual(['SIGTERM', 'SIGTERM', 'SIGTERM', 'SIGTERM']);
    expect(Date.now() - sent).toBeLessThan(10_000);
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
