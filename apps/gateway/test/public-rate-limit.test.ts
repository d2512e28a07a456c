import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { createDataSource } from '@app/database';
import { Platform, startPlatform } from '../../../test/support/platform';
import { AccountsRepository } from '../src/accounts/accounts.repository';
import { gatewaySchema } from '../src/database/schema';

/**
 * The unauthenticated endpoints (pixel, course platform events, bot updates) are rate limited per
 * target (a pixel token, a connection) and per client address, in the gateway's memory: past
 * either, 429 problem with Retry-After; another target still gets through until the address's own
 * bucket is spent. A connection id is one target however its letters are cased, as it is one
 * connection.
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

  /** A request from `from` (a loopback address: each is a client address of its own). */
  const hit = (path: string, body?: unknown, opts: { from?: string; headers?: Record<string, string> } = {}) =>
    new Promise<{ status: number; headers: Headers; text: string }>((resolve, reject) => {
      const req = request(
        `${platform.urls.gateway}${path}`,
        {
          method: body === undefined ? 'GET' : 'POST',
          localAddress: opts.from ?? '127.0.0.1',
          headers: { ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...opts.headers },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            const headers = new Headers();
            for (const [name, value] of Object.entries(res.headers)) if (value) headers.set(name, String(value));
            resolve({ status: res.statusCode!, headers, text: Buffer.concat(chunks).toString('utf8') });
          });
        },
      );
      req.on('error', reject);
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });
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

  /** The id with every other hex letter upper-cased: another spelling of the same UUID. */
  const respelt = (id: string) => id.replace(/[a-f]/g, (c, i: number) => (i % 2 ? c.toUpperCase() : c));

  it("counts every case of a connection id as that one connection, and takes any case as the connection's", async () => {
    const db = createDataSource(platform.infra.databaseUrl, gatewaySchema, 1);
    await db.initialize();
    const { token } = await new AccountsRepository(db)
      .createAccount(`limit ${randomUUID()}`, null)
      .finally(() => db.destroy());
    const created = await fetch(`${platform.urls.gateway}/v1/connections`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ channel: 'course', base_url: 'https://93.184.215.14', api_key: 'the-platform-key' }),
    });
    expect(created.status).toBe(201);
    const { id, secret } = (await created.json()) as { id: string; secret: string };
    expect(id).toBe(id.toLowerCase());

    // A client address of its own: the buckets spent above are not this one's.
    const from = '127.0.0.2';
    const event = (spelling: string, n: number) =>
      hit(
        `/v1/course/events/${spelling}`,
        { type: 'lesson', id: `evt-${n}` },
        { from, headers: { 'X-Course-Secret': secret } },
      );
    const answers = [await event(id, 1), await event(id.toUpperCase(), 2), await event(respelt(id), 3)];
    expect(answers.map((a) => a.status)).toEqual([202, 202, 202]);
    expectLimited(await event(id.toUpperCase(), 4), 'One connection');
    expectLimited(await event(id, 5), 'One connection');

    // All three are the connection's events, whichever spelling carried them.
    const listed = await fetch(`${platform.urls.gateway}/v1/course/events?connection_id=${id}`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    const events = ((await listed.json()) as { data: { event_id: string }[] }).data;
    expect(events.map((e) => e.event_id).sort()).toEqual(['evt-1', 'evt-2', 'evt-3']);

    // A bot's connection the same way (one nobody has: refused until its one bucket is spent).
    const bot = randomUUID();
    for (const spelling of [bot, bot.toUpperCase(), respelt(bot)])
      expect((await hit(`/v1/inbound/max/${spelling}`, {}, { from: '127.0.0.3' })).status).toBe(401);
    expectLimited(await hit(`/v1/inbound/max/${bot.toUpperCase()}`, {}, { from: '127.0.0.3' }), 'One connection');
  });
});
