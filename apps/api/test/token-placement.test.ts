import { ChildProcess } from 'node:child_process';
import { migrateSchema } from '@app/database';
import { killHard, spawnTs, startTestInfra, TestInfra, waitFor, waitForLine } from '@app/testing';
import { ALL_SCHEMAS } from '../../../scripts/schemas';
import { ApiFactory, TestUser } from '../../../test/support/factories';
import { freePort } from '../../../test/support/platform';
import { client, expectProblem } from './support/http';

/**
 * Bearer tokens come from the Authorization header only, and what the api logs never carries a
 * query string. The api runs as a real process so that its actual log lines are read.
 */
describe('tokens in the header only; logs without query strings', () => {
  let infra: TestInfra;
  let factory: ApiFactory;
  let api: ChildProcess;
  let sys: TestUser;
  let other: TestUser;
  let call: ReturnType<typeof client>;
  let logs = '';

  beforeAll(async () => {
    infra = await startTestInfra({ suite: 'token-placement' });
    for (const def of ALL_SCHEMAS) await migrateSchema(infra.databaseUrl, def);
    factory = await ApiFactory.connect(infra.databaseUrl);
    sys = await factory.user('system', { balance: 5 });
    other = await factory.user('system');
    const port = await freePort();
    api = spawnTs('apps/api/src/main.ts', {
      ...infra.env,
      NODE_ENV: 'test',
      API_PORT: String(port),
      // Its own admin port: the default (its port + 1000) is in another jest worker's port window.
      ADMIN_PORT: String(await freePort()),
      API_PUBLIC_URL: `http://127.0.0.1:${port}`,
      LOG_LEVEL: 'info',
      WHATSAPP_MODE: 'sandbox',
      RATE_LIMIT_PER_SECOND: '1',
      RATE_LIMIT_BURST: '3',
    });
    api.stdout?.on('data', (d: Buffer) => (logs += d.toString()));
    await waitForLine(api, /Nest application successfully started/, 30_000);
    call = client(`http://127.0.0.1:${port}/api`);
  });

  afterAll(async () => {
    if (api) await killHard(api);
    await factory?.close();
    await infra?.stop();
  });

  it('access_token in the query or the body is refused with 401, even beside a valid header', async () => {
    const path = `/v1/users/${sys.userId}/balances`;
    expectProblem(await call('GET', `${path}?access_token=${sys.token}`), 401, '/problems/unauthorized');
    expectProblem(
      await call('GET', `${path}?access_token=${sys.token}`, { auth: sys.auth }),
      401,
      '/problems/unauthorized',
    );
    expectProblem(
      await call('POST', '/v1/wa/apps', { body: { name: 'Body token shop', access_token: sys.token } }),
      401,
      '/problems/unauthorized',
    );
    expectProblem(
      await call('POST', '/v1/wa/apps', { auth: sys.auth, body: { name: 'Body token shop', access_token: 'x' } }),
      401,
    );
    expect((await call('GET', path, { auth: sys.auth })).status).toBe(200);
  });

  it('the rate limit counts each authenticated token on its own', async () => {
    // sys has used one request of its burst above; three more exhaust it.
    const path = `/v1/users/${sys.userId}/balances`;
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await call('GET', path, { auth: sys.auth })).status);
    expect(statuses).toContain(429);
    expect((await call('GET', `/v1/users/${other.userId}/balances`, { auth: other.auth })).status).toBe(200);
  });

  it('request logs carry the path, never the query (tokens, onboarding link tokens)', async () => {
    const app = await call('POST', '/v1/wa/apps', { auth: other.auth, body: { name: 'Logged link shop' } });
    expect(app.status).toBe(201);
    const link = new URL(app.body.embed_link_url);
    const t = link.searchParams.get('t')!;
    expect((await fetch(link)).status).toBe(200);
    await call('POST', `${link.pathname.replace(/^\/api/, '')}/sandbox${link.search}`, { body: { phone: '12' } });
    await waitFor(() => logs.includes(link.pathname), 5000, 'the onboarding request is logged');
    expect(logs).not.toContain(t);
    expect(logs).not.toContain(sys.token);
    expect(logs).not.toContain('access_token');
  });
});
