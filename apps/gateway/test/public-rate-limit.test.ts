import { randomUUID } from 'node:crypto';
import { Platform, startPlatform } from '../../../test/support/platform';

/**
 * The unauthenticated endpoints (pixel, course platform events, bot updates) are rate limited per
 * target (a pixel token, a connection) and per client address, in the gateway's memory: past
 * either, 429 problem with Retry-After; another target still gets through until the address's own
 * bucket is spent.
 */
describe('rate limit of the unauthenticated endpoints', () => {
  let platform: Platform;

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'gw-public-limit',
      services: ['gateway'],
      env: {
        PUBLIC_RATE_LIMIT_PER_TARGET_PER_SECOND: '1',
        PUBLIC_RATE_LIMIT_PER_TARGET_BURST: '3',
        PUBLIC_RATE_LIMIT_PER_ADDRESS_PER_SECOND: '1',
        PUBLIC_RATE_LIMIT_PER_ADDRESS_BURST: '12',
      },
    });
  });
  afterAll(() => platform?.stop());

  const hit = async (path: string, body?: unknown) => {
    const res = await fetch(`${platform.urls.gateway}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      ...(body !== undefined ? { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text };
  };
  const expectLimited = (res: Awaited<ReturnType<typeof hit>>, who: string) => {
    expect(res.status).toBe(429);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(res.headers.get('ratelimit-policy')).toBe('"default";q=1;w=1');
    expect(JSON.parse(res.text)).toMatchObject({ type: '/problems/rate-limited', status: 429 });
    expect(JSON.parse(res.text).detail).toContain(who);
  };

  it('per pixel token, per connection, then per client address', async () => {
    const token = 'A'.repeat(60);
    for (let i = 0; i < 3; i++) expect((await hit(`/v1/course/pixel/${token}.gif`)).status).toBe(200);
    expectLimited(await hit(`/v1/course/pixel/${token}.gif`), 'One pixel');
    expect((await hit(`/v1/course/pixel/${'B'.repeat(60)}.gif`)).status).toBe(200);

    // A connection nobody has: refused (401) until its bucket is spent, then 429.
    const connection = randomUUID();
    for (let i = 0; i < 3; i++) expect((await hit(`/v1/course/events/${connection}`, { event: 'x' })).status).toBe(401);
    expectLimited(await hit(`/v1/course/events/${connection}`, { event: 'x' }), 'One connection');
    for (let i = 0; i < 2; i++)
      expect((await hit(`/v1/inbound/telegram/${connection}`, { update_id: 1 })).status).toBe(401);

    // 11 from this address so far (refilling at 1/s): a new target each time, and within a few
    // requests the address's own bucket is spent.
    let res = await hit(`/v1/inbound/max/${randomUUID()}`, {});
    for (let i = 0; i < 3 && res.status === 401; i++) res = await hit(`/v1/inbound/max/${randomUUID()}`, {});
    expectLimited(res, 'This client address');
    expectLimited(await hit(`/v1/course/pixel/${'C'.repeat(60)}.gif`), 'This client address');
  });
});
