import { ApiFactory, TestUser } from '../../../test/support/factories';
import { Platform, startPlatform } from '../../../test/support/platform';
import { client, expectProblem } from './support/http';

/** Per-token rate limit, kept in Postgres so that every api replica shares it. */
describe('rate limit per token', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let sys: TestUser;
  let call: ReturnType<typeof client>;
  let callOther: ReturnType<typeof client>;

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'rate-limit',
      services: ['api'],
      env: { RATE_LIMIT_PER_SECOND: '2', RATE_LIMIT_BURST: '5' },
    });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    sys = await factory.user('system', { balance: 1 });
    call = client(`${platform.urls.api}/api`);
    // A second api replica on the same database: the bucket must be shared.
    const { loadConfig } = await import('@app/config');
    const { ApiConfig } = await import('../src/config');
    const { createApiApp } = await import('../src/api.app');
    const replica = await createApiApp(loadConfig(ApiConfig, { ...process.env, ...platform.env }));
    await replica.listen(0, '127.0.0.1');
    replicaClose = () => replica.close();
    callOther = client(`${await replica.getUrl()}/api`.replace('[::1]', '127.0.0.1'));
  });
  let replicaClose: () => Promise<void> = async () => undefined;

  afterAll(async () => {
    await replicaClose();
    await factory?.close();
    await platform?.stop();
  });

  it('every answer carries RateLimit-Policy and RateLimit; past the burst, 429 with Retry-After, across replicas', async () => {
    const path = `/v1/users/${sys.userId}/balances`;
    const first = await call('GET', path, { auth: sys.auth });
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-policy')).toBe('"default";q=2;w=1');
    expect(first.headers.get('ratelimit')).toMatch(/^"default";r=4;t=1$/);
    // Alternate between the two replicas: they draw from one bucket.
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await (i % 2 ? call : callOther)('GET', path, { auth: sys.auth }));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    const refused = await callOther('GET', path, { auth: sys.auth });
    expectProblem(refused, 429, '/problems/rate-limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get('ratelimit')).toMatch(/^"default";r=0;t=1$/);
    expect(refused.headers.get('ratelimit-policy')).toBe('"default";q=2;w=1');
  });

  it('concurrent requests on one token draw from its bucket one after another: the burst passes, the rest are refused', async () => {
    const tenant = await factory.user('system');
    const path = `/v1/users/${tenant.userId}/balances`;
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 ? call : callOther)('GET', path, { auth: tenant.auth })),
    );
    const ok = answers.filter((a) => a.status === 200);
    const remaining = ok.map((a) => Number(/r=(\d+)/.exec(a.headers.get('ratelimit') ?? '')?.[1]));
    // The burst of 5 (one more if the bucket refilled half a second's worth while they ran).
    expect(ok.length).toBeGreaterThanOrEqual(5);
    expect(ok.length).toBeLessThanOrEqual(6);
    // Each passing request took its own token.
    expect(new Set(remaining).size).toBe(ok.length);
    for (const refused of answers.filter((a) => a.status !== 200)) {
      expectProblem(refused, 429, '/problems/rate-limited');
      expect(refused.headers.get('ratelimit')).toMatch(/^"default";r=0;t=1$/);
    }
  });

  it('the bucket refills at the configured rate', async () => {
    await new Promise((r) => setTimeout(r, 1100));
    const res = await call('GET', `/v1/users/${sys.userId}/balances`, { auth: sys.auth });
    expect(res.status).toBe(200);
  });

  it('tokens have their own buckets; the limit covers sends and transactions too', async () => {
    const other = await factory.user('system');
    const app = await factory.activeApp(other.userId);
    const results = [];
    for (let i = 0; i < 6; i++) {
      results.push(
        await call('POST', `/v1/wa/apps/${app.id}/messages`, {
          auth: other.auth,
          body: { phone: '79990001122', type: 'TEXT', text: { body: 'hi' } },
        }),
      );
    }
    // Five pass the limit (and meet the closed window), the sixth is refused before anything else.
    expect(results.map((r) => r.status)).toEqual([422, 422, 422, 422, 422, 429]);
    expect(results[0].headers.get('ratelimit')).toMatch(/^"default";r=4;/);
    const tx = await call('GET', `/v1/users/${other.userId}/transactions?start_date=2025-01-01`, { auth: other.auth });
    expectProblem(tx, 429);
  });

  it.each([
    ['apps', (appId: number) => `/v1/wa/apps/${appId}`],
    ['profiles', (appId: number) => `/v1/wa/apps/${appId}/profile`],
    ['templates', (appId: number) => `/v1/wa/apps/${appId}/templates`],
    ['subscriptions', () => '/v1/subscriptions'],
  ])('the %s endpoints share the same per-token bucket', async (_name, pathOf) => {
    const tenant = await factory.user('system');
    const app = await factory.activeApp(tenant.userId);
    const first = await call('GET', pathOf(app.id), { auth: tenant.auth });
    expect(first.headers.get('ratelimit-policy')).toBe('"default";q=2;w=1');
    expect(first.headers.get('ratelimit')).toMatch(/^"default";r=4;t=1$/);
    for (let i = 0; i < 4; i++) await call('GET', pathOf(app.id), { auth: tenant.auth });
    expectProblem(await call('GET', pathOf(app.id), { auth: tenant.auth }), 429, '/problems/rate-limited');
  });
});
