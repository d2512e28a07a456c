import { ApiFactory, TestUser } from '../../../test/support/factories';
import { Platform, startPlatform } from '../../../test/support/platform';
import { BalancesRepository } from '../src/billing/balances.repository';
import { BillingService } from '../src/billing/billing.service';
import { client, errorFields, expectProblem, HttpResult } from './support/http';

/** GET /v1/users/{userId}/balances and /transactions. */
describe('balances and transactions', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let sys: TestUser;
  let call: ReturnType<typeof client>;
  const today = () => new Date().toISOString().slice(0, 10);

  beforeAll(async () => {
    platform = await startPlatform({ suite: 'users-balances', services: ['api'] });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    sys = await factory.user('system', { currency: 'EUR' });
    call = client(`${platform.urls.api}/api`);
  });

  afterAll(async () => {
    await factory?.close();
    await platform?.stop();
  });

  it('a new user has a zero balance in their currency and no transactions (204, no body)', async () => {
    const res = await call('GET', `/v1/users/${sys.userId}/balances`, { auth: sys.auth });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ balance: 0, currency: 'EUR' });
    const tx = await call('GET', `/v1/users/${sys.userId}/transactions?start_date=${today()}`, { auth: sys.auth });
    expect(tx.status).toBe(204);
    expect(tx.text).toBe('');
  });

  it('credits are positive transactions; charges negative with the recipient masked; the balance excludes holds', async () => {
    const billing = new BillingService(new BalancesRepository(factory.dataSource));
    await billing.credit(sys.userId, 10);
    const app = await factory.activeApp(sys.userId);
    // A delivered message's charge and a still-held one, as the send and event paths leave them.
    await factory.dataSource.query(
      `INSERT INTO messages (id, user_id, app_id, channel, recipient, kind, category, priority, status, price, currency)
       VALUES ('m-delivered', $1, $2, 'whatsapp', '4915112345678', 'TEMPLATE', 'MARKETING', 'marketing', 'DELIVERED', 0.05, 'EUR'),
              ('m-held', $1, $2, 'whatsapp', '4915112345679', 'TEMPLATE', 'MARKETING', 'marketing', 'QUEUED', 0.05, 'EUR')`,
      [sys.userId, app.id],
    );
    await factory.dataSource.query(
      `UPDATE balances SET available = available - 0.1, held = held + 0.1 WHERE user_id = $1`,
      [sys.userId],
    );
    await factory.dataSource.query(
      `INSERT INTO holds (message_id, user_id, amount, currency, status) VALUES
       ('m-delivered', $1, 0.05, 'EUR', 'HELD'), ('m-held', $1, 0.05, 'EUR', 'HELD')`,
      [sys.userId],
    );
    expect(await billing.capture('m-delivered')).toBe(true);
    expect(await billing.capture('m-delivered')).toBe(false);

    const res = await call('GET', `/v1/users/${sys.userId}/balances`, { auth: sys.auth });
    expect(res.body).toEqual({ balance: 9.9, currency: 'EUR' });
    const tx = await call('GET', `/v1/users/${sys.userId}/transactions?start_date=${today()}`, { auth: sys.auth });
    expect(tx.status).toBe(200);
    expect(tx.body).toEqual([
      {
        id: expect.any(String),
        app_id: null,
        amount: 10,
        currency: 'EUR',
        status: 'CREDITED',
        category: null,
        assumed_category: null,
        pricing_type: null,
        uncharged: 0,
        recipient_phone: null,
        campaign_id: null,
        timestamp: expect.any(Number),
      },
      {
        id: expect.any(String),
        app_id: app.id,
        amount: -0.05,
        currency: 'EUR',
        status: 'DELIVERED',
        category: 'MARKETING',
        assumed_category: 'MARKETING',
        pricing_type: null,
        uncharged: 0,
        recipient_phone: '4915*******78',
        campaign_id: null,
        timestamp: expect.any(Number),
      },
    ]);
    expect(Math.abs(tx.body[0].timestamp - Date.now() / 1000)).toBeLessThan(60);
  });

  it('start_date bounds the list at 00:00 UTC of that day', async () => {
    await factory.dataSource.query(
      `UPDATE transactions SET created_at = '2025-03-10T23:59:59Z' WHERE user_id = $1 AND status = 'CREDITED'`,
      [sys.userId],
    );
    const from10 = await call('GET', `/v1/users/${sys.userId}/transactions?start_date=2025-03-10`, { auth: sys.auth });
    expect(from10.body.map((t: { status: string }) => t.status)).toEqual(['CREDITED', 'DELIVERED']);
    expect(from10.body[0].timestamp).toBe(Date.UTC(2025, 2, 10, 23, 59, 59) / 1000);
    const from11 = await call('GET', `/v1/users/${sys.userId}/transactions?start_date=2025-03-11`, { auth: sys.auth });
    expect(from11.body.map((t: { status: string }) => t.status)).toEqual(['DELIVERED']);
    const future = await call('GET', `/v1/users/${sys.userId}/transactions?start_date=2999-01-01`, { auth: sys.auth });
    expect(future.status).toBe(204);
  });

  it.each([
    ['', 'missing'],
    ['?start_date=', 'empty'],
    ['?start_date=2025-1-05', 'not zero-padded'],
    ['?start_date=2025-02-30', 'not a calendar date'],
    ['?start_date=2025-13-01', 'month 13'],
    ['?start_date=05.01.2025', 'another format'],
    ['?start_date=2025-01-01T00:00:00Z', 'a timestamp'],
  ])('start_date %s (%s): 400 naming start_date', async (query) => {
    const res = await call('GET', `/v1/users/${sys.userId}/transactions${query}`, { auth: sys.auth });
    expectProblem(res, 400, '/problems/validation-error');
    expect([...new Set(errorFields(res))]).toEqual(['start_date']);
  });

  it('pages keep the array: limit rows each, the next named by Link (rel="next"), ties in order, none twice', async () => {
    const pager = await factory.user('system');
    // 25 charges, five at each instant, so that pages split rows of one time.
    await factory.transactionHistory(pager.userId, 25, { from: '2025-06-01T10:00:00Z', perInstant: 5 });
    const seen: { id: string; timestamp: number }[] = [];
    let url: string | null = `/v1/users/${pager.userId}/transactions?start_date=2025-06-01&limit=7`;
    const sizes: number[] = [];
    while (url) {
      const page: HttpResult = await call('GET', url, { auth: pager.auth });
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^application\/json/);
      sizes.push(page.body.length);
      seen.push(...page.body);
      const link: string | null = page.headers.get('link');
      if (link === null) url = null;
      else {
        const [, next]: (string | undefined)[] = /^<\/api([^>]+)>; rel="next"$/.exec(link) ?? [];
        expect(next).toContain('start_date=2025-06-01&limit=7&cursor=');
        url = next;
      }
    }
    expect(sizes).toEqual([7, 7, 7, 4]);
    expect(new Set(seen.map((t) => t.id)).size).toBe(25);
    const timestamps = seen.map((t) => t.timestamp);
    expect(timestamps).toEqual([...timestamps].sort((a, b) => a - b));
    const [{ ids }] = (await factory.dataSource.query(
      `SELECT array_agg(id::text ORDER BY created_at, id) AS ids FROM transactions WHERE user_id = $1`,
      [pager.userId],
    )) as { ids: string[] }[];
    expect(seen.map((t) => t.id)).toEqual(ids);
    // Without limit: the default page holds all 25, and no Link.
    const whole = await call('GET', `/v1/users/${pager.userId}/transactions?start_date=2025-06-01`, {
      auth: pager.auth,
    });
    expect(whole.body).toEqual(seen);
    expect(whole.headers.get('link')).toBeNull();
  });

  it.each([
    ['&limit=0', 'limit'],
    ['&limit=100001', 'limit'],
    ['&limit=ten', 'limit'],
    ['&cursor=abc', 'cursor'],
    ['&cursor=1749.not-a-uuid', 'cursor'],
  ])('%s: 400 naming %s', async (query, field) => {
    const res = await call('GET', `/v1/users/${sys.userId}/transactions?start_date=2025-01-01${query}`, {
      auth: sys.auth,
    });
    expectProblem(res, 400, '/problems/validation-error');
    expect([...new Set(errorFields(res))]).toEqual([field]);
  });

  it("401 without a token, 403 for a real user's token and for another user's id", async () => {
    expectProblem(await call('GET', `/v1/users/${sys.userId}/balances`), 401);
    const realUser = await factory.user('user');
    expectProblem(await call('GET', `/v1/users/${realUser.userId}/balances`, { auth: realUser.auth }), 403);
    const other = await factory.user('system');
    for (const path of ['balances', 'transactions?start_date=2025-01-01', 'transactions?start_date=bad']) {
      expectProblem(await call('GET', `/v1/users/${other.userId}/${path}`, { auth: sys.auth }), 403);
    }
    expectProblem(await call('GET', `/v1/users/not-a-uuid/balances`, { auth: sys.auth }), 403);
  });
});
