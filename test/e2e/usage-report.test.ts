import { createDataSource } from '@app/database';
import { EventEnvelope, EventType, newEventId, Topology } from '@app/contracts';
import { NatsClients, publishDurable } from '@app/messaging';
import { waitFor, eventsHandledBy } from '@app/testing';
import { DataSource } from 'typeorm';
import { ReceiptReconciler } from '../../apps/api/src/statuses/receipt-reconciler';
import type { AppEntity } from '../../apps/api/src/wa-apps/app.entity';
import { AccountsRepository } from '../../apps/gateway/src/accounts/accounts.repository';
import { gatewaySchema } from '../../apps/gateway/src/database/schema';
import { client, errorFields, expectProblem, Json } from '../../apps/api/test/support/http';
import { ApiFactory, TestUser } from '../support/factories';
import { Platform, startPlatform } from '../support/platform';
import { registerSandboxNumber, sandboxControl } from '../support/sandbox';
import { commitTemplateSend } from '../support/send-records';

const HOUR_MS = 3_600_000;
const hourOf = (unixSeconds: number) => new Date(Math.floor((unixSeconds * 1000) / HOUR_MS) * HOUR_MS);
const iso = (d: Date) => d.toISOString().replace('.000Z', 'Z');
const day = (d: Date) => d.toISOString().slice(0, 10);

/** Prices: WhatsApp's (MESSAGE_PRICES) and the bot channels' (CHANNEL_MESSAGE_PRICES). */
const WA = { MARKETING: 0.05, MARKETING_LITE: 0.03, UTILITY: 0.02, AUTHENTICATION: 0.02, SERVICE: 0 };
const TG = { MARKETING: 0.01, MARKETING_LITE: 0.01, UTILITY: 0.005, SERVICE: 0, AUTHENTICATION: 0.004 };
const MX = { MARKETING: 0.003, MARKETING_LITE: 0.003, UTILITY: 0.003, SERVICE: 0, AUTHENTICATION: 0.003 };

type Row = {
  hour: string;
  channel: string;
  category: string;
  queued: number;
  sent: number;
  delivered: number;
  read: number;
  failed: number;
  cost: number;
  currency: string;
};

/**
 * The usage report counts every message of a user, sent through the api or a gateway account, in
 * the hour it was accepted in: known sends on WhatsApp (api), Telegram and MAX (gateway), in three
 * categories and two hours, each followed to its final status (delivery, read, a failure callback,
 * the reconciler's no_receipt), give exact rows in JSON and CSV on both surfaces; a status event
 * applied twice counts once; bad periods and filters are 400 naming the field; another user's
 * report is 403.
 */
describe('usage report', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let gatewayDb: DataSource;
  let nats: NatsClients;
  let topology: Topology;
  let user: TestUser;
  let other: TestUser;
  let app: AppEntity;
  let token: string;
  let api: ReturnType<typeof client>;
  let gateway: ReturnType<typeof client>;
  const bots: Record<'telegram' | 'max', { id: number; token: string }> = {} as never;
  /** The rows the report must show, built from what each message did. */
  const expected = new Map<string, Row>();

  const count = (
    acceptedAt: number,
    channel: string,
    category: keyof typeof WA,
    outcome: Partial<Omit<Row, 'hour' | 'channel' | 'category' | 'currency'>>,
  ) => {
    const hour = iso(hourOf(acceptedAt));
    const key = `${hour} ${channel} ${category}`;
    const row = expected.get(key) ?? {
      hour,
      channel,
      category,
      queued: 0,
      sent: 0,
      delivered: 0,
      read: 0,
      failed: 0,
      cost: 0,
      currency: 'USD',
    };
    row.queued += 1;
    for (const k of ['sent', 'delivered', 'read', 'failed'] as const) row[k] += outcome[k] ?? 0;
    row.cost = Math.round((row.cost + (outcome.cost ?? 0)) * 10_000) / 10_000;
    expected.set(key, row);
  };
  const expectedRows = () => [...expected.keys()].sort().map((k) => expected.get(k)!);

  const sandbox = async (path: string, body?: unknown) =>
    (await sandboxControl<Json>(platform.urls.sandbox, path, body)).body;
  const emit = async (type: EventType, data: Record<string, unknown>) => {
    const now = Math.floor(Date.now() / 1000);
    const event: EventEnvelope = {
      id: newEventId(),
      type,
      created_at: now,
      channel: 'whatsapp',
      app_id: null,
      data: { recipient: '79990001122', timestamp: now, ...data },
    };
    await publishDurable(nats.js, topology.eventSubject(type), event, event.id);
  };
  /** The api has handled (and acked) every event published so far. */
  const eventsHandled = () => eventsHandledBy(nats, topology, 'api');
  /** A WhatsApp send recorded by the api's own send transaction as accepted at `at` (not published). */
  const acceptedAt = async (at: Date, category: 'MARKETING' | 'UTILITY' | 'AUTHENTICATION'): Promise<string> =>
    (
      await commitTemplateSend(platform.apps.api!, topology, {
        userId: user.userId,
        app,
        recipient: '79990001122',
        category,
        price: WA[category],
        template: 'earlier',
        at,
      })
    ).id;
  const apiReport = async (id: string, status: string) =>
    waitFor(
      async () => {
        const res = await api('GET', `/v1/wa/apps/${app.id}/messages/${id}`, { auth: user.auth });
        return res.body?.status === status ? (res.body as Json) : false;
      },
      20_000,
      `message ${id} at ${status}`,
      100,
    );
  const gatewayReport = async (id: string, status: string) =>
    waitFor(
      async () => {
        const res = await gateway('GET', `/v1/messages/${id}`, { auth: `Bearer ${token}` });
        return res.body?.status === status ? (res.body as Json) : false;
      },
      20_000,
      `message ${id} at ${status}`,
      100,
    );

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'usage-report',
      services: ['api', 'gateway', 'queue', 'sandbox'],
      env: {
        SANDBOX_STATUS_DELAY_MS: '50',
        MESSAGE_PRICES: JSON.stringify(WA),
        CHANNEL_MESSAGE_PRICES: JSON.stringify({ telegram: TG, max: MX }),
        // Settlement passes are driven by the test; rows of the earlier sends are never relayed.
        SETTLEMENT_INTERVAL_MS: '0',
        OUTBOX_RELAY_AFTER_MS: String(24 * HOUR_MS),
        RECEIPT_TIMEOUT_MINUTES: '30',
      },
    });
    topology = platform.infra.topology;
    nats = await NatsClients.connect({ url: platform.infra.natsUrl, name: 'usage-report-test' });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    gatewayDb = createDataSource(platform.infra.databaseUrl, gatewaySchema, 2);
    await gatewayDb.initialize();
    api = client(`${platform.urls.api}/api`);
    gateway = client(platform.urls.gateway);
    user = await factory.user('system', { balance: 10 });
    other = await factory.user('system', { balance: 1 });
    app = await factory.activeApp(user.userId, { message_limit: 'TIER_UNLIMITED' });
    await registerSandboxNumber(platform.urls.sandbox, app);
    await factory.sendableTemplate(app.id, { name: 'promo', category: 'MARKETING', body: 'Sale {{1}}' });
    await factory.sendableTemplate(app.id, { name: 'order_ready', category: 'UTILITY', body: 'Order {{1}} ready' });
    await factory.sendableTemplate(app.id, { name: 'login_code', category: 'AUTHENTICATION', body: 'Code {{1}}' });
    token = (await new AccountsRepository(gatewayDb).createAccount('shop', user.userId)).token;
    const link = await gateway('POST', '/v1/connections', {
      auth: `Bearer ${token}`,
      body: { channel: 'whatsapp', app_id: app.id },
    });
    expect(link.status).toBe(201);
    for (const channel of ['telegram', 'max'] as const) {
      bots[channel] = (await sandbox(`${channel}/bots`, {})) as { id: number; token: string };
      const res = await gateway('POST', '/v1/connections', {
        auth: `Bearer ${token}`,
        body: { channel, bot_token: bots[channel].token },
      });
      expect(res.status).toBe(201);
    }

    // The earlier hour: sends accepted at its start, followed by the channel's status events.
    const earlier = new Date(Math.floor(Date.now() / HOUR_MS) * HOUR_MS - HOUR_MS + 5_000);
    const at = Math.floor(earlier.getTime() / 1000);
    const delivered = await acceptedAt(earlier, 'MARKETING');
    const readFirst = await acceptedAt(earlier, 'MARKETING');
    const noReceipt = await acceptedAt(earlier, 'UTILITY');
    const rejected = await acceptedAt(earlier, 'AUTHENTICATION');
    await emit('message.sent', { message_id: delivered, status: 'SENT', provider_message_id: 'wamid.U1' });
    await emit('message.delivered', { message_id: delivered, status: 'DELIVERED' });
    // The channel repeats a callback: applied once, counted once.
    await emit('message.delivered', { message_id: delivered, status: 'DELIVERED' });
    // A read receipt before its delivery receipt: sent, delivered and read, each once.
    await emit('message.read', { message_id: readFirst, status: 'READ' });
    await emit('message.delivered', { message_id: readFirst, status: 'DELIVERED' });
    await emit('message.failed', {
      message_id: rejected,
      status: 'FAILED',
      error: { code: '131026', title: 'Message undeliverable' },
    });
    await eventsHandled();
    // No final status within RECEIPT_TIMEOUT_MINUTES: the reconciler fails it (no_receipt).
    expect(await platform.apps.api!.get(ReceiptReconciler).settle()).toMatchObject({ expired: 1 });
    count(at, 'whatsapp', 'MARKETING', { sent: 1, delivered: 1, cost: WA.MARKETING });
    count(at, 'whatsapp', 'MARKETING', { sent: 1, delivered: 1, read: 1, cost: WA.MARKETING });
    count(at, 'whatsapp', 'UTILITY', { failed: 1 });
    count(at, 'whatsapp', 'AUTHENTICATION', { failed: 1 });
    expect((await apiReport(noReceipt, 'FAILED')).failure.code).toBe('no_receipt');

    // This hour: WhatsApp through the api (templates and a free-form reply in an open conversation).
    const apiSends: { id: string; category: keyof typeof WA }[] = [];
    for (const [phone, name, category] of [
      ['79990000001', 'promo', 'MARKETING'],
      ['79990000002', 'promo', 'MARKETING'],
      ['79990000003', 'login_code', 'AUTHENTICATION'],
    ] as const) {
      const res = await api('POST', `/v1/wa/apps/${app.id}/messages`, {
        auth: user.auth,
        body: { phone, type: 'TEMPLATE', template: { name, components: { body: { values: ['x'] } } } },
      });
      expect(res.status).toBe(201);
      apiSends.push({ id: res.body.message.id, category });
    }
    await factory.openConversation(app.id, '79990000004');
    const reply = await api('POST', `/v1/wa/apps/${app.id}/messages`, {
      auth: user.auth,
      body: { phone: '79990000004', type: 'TEXT', text: { body: 'Thanks for writing' } },
    });
    expect(reply.status).toBe(201);
    apiSends.push({ id: reply.body.message.id, category: 'SERVICE' });
    // Telegram and MAX through the gateway.
    // The Telegram emulator answers "bot was blocked by the user" for chats ending in 4444.
    const gatewaySends: { id: string; channel: 'telegram' | 'max'; category: keyof typeof WA; blocked?: true }[] = [];
    for (const [channel, to, template, category] of [
      ['telegram', '424242', 'order_ready', 'UTILITY'],
      ['telegram', '434343', 'order_ready', 'UTILITY'],
      ['telegram', '424444', 'promo', 'MARKETING'],
      ['max', '515151', 'login_code', 'AUTHENTICATION'],
    ] as const) {
      const res = await gateway('POST', '/v1/messages', {
        auth: `Bearer ${token}`,
        body: { channel, to, template, params: ['x'] },
      });
      expect(res.status).toBe(202);
      gatewaySends.push({ id: res.body.id, channel, category, ...(to.endsWith('4444') ? { blocked: true } : {}) });
    }
    for (const send of apiSends) {
      const report = await apiReport(send.id, 'READ');
      count(report.created_at, 'whatsapp', send.category, { sent: 1, delivered: 1, read: 1, cost: WA[send.category] });
    }
    for (const send of gatewaySends) {
      if (send.blocked) {
        // Failed by the channel: its hold released, nothing charged.
        const report = await gatewayReport(send.id, 'FAILED');
        count(report.created_at, send.channel, send.category, { failed: 1 });
        continue;
      }
      const report = await gatewayReport(send.id, 'SENT');
      const prices = send.channel === 'telegram' ? TG : MX;
      count(report.created_at, send.channel, send.category, { sent: 1, cost: prices[send.category] });
    }
    await eventsHandled();
    // A repeated read receipt of a message already READ changes nothing.
    await emit('message.read', { message_id: apiSends[0].id, status: 'READ' });
    await eventsHandled();
  });

  afterAll(async () => {
    await nats?.drain();
    await gatewayDb?.destroy();
    await factory?.close();
    await platform?.stop();
  });

  const period = () => {
    const rows = expectedRows();
    const from = day(new Date(rows[0].hour));
    const to = day(new Date(rows[rows.length - 1].hour));
    return `from=${from}&to=${to}`;
  };
  const csvOf = (rows: Row[]) =>
    [
      'hour,channel,category,queued,sent,delivered,read,failed,cost,currency',
      ...rows.map((r) =>
        [r.hour, r.channel, r.category, r.queued, r.sent, r.delivered, r.read, r.failed, r.cost, r.currency].join(','),
      ),
    ].join('\r\n') + '\r\n';

  it('counts every send of both surfaces by hour of acceptance, channel and category, with the money captured', async () => {
    const res = await api('GET', `/v1/users/${user.userId}/usage?${period()}`, { auth: user.auth });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: expectedRows() });
    // Two hours, three channels, four categories (three template categories and free-form SERVICE).
    expect(new Set(expectedRows().map((r) => r.hour)).size).toBe(2);
    expect(new Set(expectedRows().map((r) => r.channel))).toEqual(new Set(['whatsapp', 'telegram', 'max']));
    expect(res.body.data.reduce((n: number, r: Row) => n + r.queued, 0)).toBe(12);
    expect(res.body.data.reduce((n: number, r: Row) => n + r.failed, 0)).toBe(3);
  });

  it('answers CSV for Accept: text/csv, and filters by channel and category', async () => {
    const csv = await api('GET', `/v1/users/${user.userId}/usage?${period()}`, {
      auth: user.auth,
      headers: { accept: 'text/csv' },
    });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.text).toBe(csvOf(expectedRows()));

    const telegram = await api('GET', `/v1/users/${user.userId}/usage?${period()}&channel=telegram`, {
      auth: user.auth,
    });
    expect(telegram.body.data).toEqual(expectedRows().filter((r) => r.channel === 'telegram'));
    const marketing = await api('GET', `/v1/users/${user.userId}/usage?${period()}&category=MARKETING`, {
      auth: user.auth,
    });
    expect(marketing.body.data).toEqual(expectedRows().filter((r) => r.category === 'MARKETING'));
    expect(marketing.body.data.length).toBeGreaterThanOrEqual(2);
  });

  it("the gateway's account token reads the same report of its user, JSON and CSV", async () => {
    const json = await gateway('GET', `/v1/usage?${period()}`, { auth: `Bearer ${token}` });
    expect(json.status).toBe(200);
    expect(json.body).toEqual({ data: expectedRows() });
    const csv = await gateway('GET', `/v1/usage?${period()}&channel=max`, {
      auth: `Bearer ${token}`,
      headers: { accept: 'text/csv' },
    });
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.text).toBe(csvOf(expectedRows().filter((r) => r.channel === 'max')));
    expect((await gateway('GET', `/v1/usage?${period()}`)).status).toBe(401);
    // An account of no user has no usage of its own to report.
    const unlinked = (await new AccountsRepository(gatewayDb).createAccount('loose', null)).token;
    expectProblem(await gateway('GET', `/v1/usage?${period()}`, { auth: `Bearer ${unlinked}` }), 422);
  });

  it('a period with no sends is an empty report; another user sees only its own', async () => {
    const empty = await api('GET', `/v1/users/${user.userId}/usage?from=2020-01-01&to=2020-02-01`, {
      auth: user.auth,
    });
    expect(empty.body).toEqual({ data: [] });
    const csv = await api('GET', `/v1/users/${user.userId}/usage?from=2020-01-01&to=2020-02-01`, {
      auth: user.auth,
      headers: { accept: 'text/csv' },
    });
    expect(csv.text).toBe('hour,channel,category,queued,sent,delivered,read,failed,cost,currency\r\n');
    const own = await api('GET', `/v1/users/${other.userId}/usage?${period()}`, { auth: other.auth });
    expect(own.body).toEqual({ data: [] });
    const theirs = await api('GET', `/v1/users/${user.userId}/usage?${period()}`, { auth: other.auth });
    expectProblem(theirs, 403);
  });

  it.each([
    ['', 'from,to'],
    ['from=2026-11-01', 'to'],
    ['from=2026-02-30&to=2026-03-02', 'from'],
    ['from=2026-11-01T00:00:00Z&to=2026-11-02', 'from'],
    ['from=2026-11-01&to=11/02/2026', 'to'],
    ['from=2026-11-03&to=2026-11-02', 'to'],
    ['from=2026-01-01&to=2026-04-04', 'to'],
    ['from=2026-11-01&to=2026-11-02&channel=sms', 'channel'],
    ['from=2026-11-01&to=2026-11-02&category=PROMO', 'category'],
  ])('?%s is 400 naming %s, on both surfaces', async (query, fields) => {
    const fromApi = await api('GET', `/v1/users/${user.userId}/usage?${query}`, { auth: user.auth });
    expectProblem(fromApi, 400);
    expect([...new Set(errorFields(fromApi))]).toEqual(fields.split(','));
    const fromGateway = await gateway('GET', `/v1/usage?${query}`, { auth: `Bearer ${token}` });
    expectProblem(fromGateway, 400);
    expect([...new Set(errorFields(fromGateway))]).toEqual(fields.split(','));
  });

  it('from=to is that one day (UTC), on both surfaces', async () => {
    const days = [...new Set(expectedRows().map((r) => day(new Date(r.hour))))];
    for (const today of days) {
      const rows = expectedRows().filter((r) => day(new Date(r.hour)) === today);
      const fromApi = await api('GET', `/v1/users/${user.userId}/usage?from=${today}&to=${today}`, { auth: user.auth });
      expect(fromApi.status).toBe(200);
      expect(fromApi.body).toEqual({ data: rows });
      const fromGateway = await gateway('GET', `/v1/usage?from=${today}&to=${today}`, { auth: `Bearer ${token}` });
      expect(fromGateway.body).toEqual({ data: rows });
    }
    const before = day(new Date(Date.parse(expectedRows()[0].hour) - 86_400_000));
    const yesterday = await api('GET', `/v1/users/${user.userId}/usage?from=${before}&to=${before}`, {
      auth: user.auth,
    });
    expect(yesterday.body).toEqual({ data: [] });
  });

  it('93 days, both ends counted, is the longest period, and a full one reads the same on both surfaces', async () => {
    // Every hour, channel and category of the 93 days counted (over 2 MB of JSON): the gateway's
    // answer must not depend on one request/reply carrying it all.
    const busy = await factory.user('system', { balance: 1 });
    await factory.dataSource.query(
      `INSERT INTO usage_hourly (user_id, hour, channel, category, queued, sent, delivered, read, failed, cost)
       SELECT $1, h, c, k, 3, 2, 1, 1, 1, 0.05
       FROM generate_series('2026-01-01T00:00:00Z'::timestamptz, '2026-04-05T00:00:00Z'::timestamptz - interval '1 hour',
                            interval '1 hour') AS h,
            unnest(ARRAY['whatsapp', 'telegram', 'max']) AS c,
            unnest(ARRAY['MARKETING', 'UTILITY', 'AUTHENTICATION', 'SERVICE', 'MARKETING_LITE']) AS k`,
      [busy.userId],
    );
    const busyToken = (await new AccountsRepository(gatewayDb).createAccount('busy', busy.userId)).token;
    // Rows on 2026-04-04 too: the day after to is not in the report.
    const query = 'from=2026-01-01&to=2026-04-03';
    const fromApi = await api('GET', `/v1/users/${busy.userId}/usage?${query}`, { auth: busy.auth });
    expect(fromApi.status).toBe(200);
    expect(fromApi.body.data).toHaveLength(93 * 24 * 3 * 5);
    const fromGateway = await gateway('GET', `/v1/usage?${query}`, { auth: `Bearer ${busyToken}` });
    expect(fromGateway.status).toBe(200);
    expect(fromGateway.body).toEqual(fromApi.body);
  });
});
