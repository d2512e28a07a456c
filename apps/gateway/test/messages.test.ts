import { waitFor } from '@app/testing';
import { createDataSource } from '@app/database';
import { DataSource } from 'typeorm';
import { ApiFactory, TestUser } from '../../../test/support/factories';
import { Platform, startPlatform } from '../../../test/support/platform';
import { registerSandboxNumber, sandboxControl } from '../../../test/support/sandbox';
import { Endpoint } from '../../../test/support/webhook-endpoint';
import { AccountsRepository } from '../src/accounts/accounts.repository';
import { gatewaySchema } from '../src/database/schema';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

interface BotCall {
  bot_id: number;
  method: string;
  params: Json;
  outcome: string;
}

/**
 * The gateway's one send endpoint and one delivery report, through every service: a template of
 * the linked WhatsApp app sent on WhatsApp, Telegram and MAX reaches each emulator with the
 * channel's exact call, reaches its final status in the report, is charged from the user's
 * balance at the channel's price, and reaches one webhook subscriber in one format.
 */
describe('gateway sends and the delivery report', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let gatewayDb: DataSource;
  let accounts: AccountsRepository;
  let user: TestUser;
  let app: Awaited<ReturnType<ApiFactory['activeApp']>>;
  let token: string;
  let endpoint: Endpoint;
  const bots: Record<'telegram' | 'max', { id: number; token: string }> = {} as never;

  const call = async (path: string, init: { method?: string; token?: string; body?: unknown; headers?: Json } = {}) => {
    const res = await fetch(`${platform.urls.gateway}${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: {
        ...(init.token !== undefined ? { Authorization: `Bearer ${init.token}` } : {}),
        ...(init.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
        ...init.headers,
      },
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : null) as Json };
  };
  const sandbox = async (path: string, body?: unknown) =>
    (await sandboxControl<Json & Json[]>(platform.urls.sandbox, path, body)).body;
  const balance = async () => {
    const res = await fetch(`${platform.urls.api}/api/v1/users/${user.userId}/balances`, {
      headers: { authorization: user.auth },
    });
    return ((await res.json()) as { balance: number }).balance;
  };
  const heldHolds = async () =>
    (
      (await factory.dataSource.query(`SELECT count(*)::int AS n FROM holds WHERE user_id = $1 AND status = 'HELD'`, [
        user.userId,
      ])) as { n: number }[]
    )[0].n;
  const finalReport = (id: string, status: string) =>
    waitFor(
      async () => {
        const res = await call(`/v1/messages/${id}`, { token });
        return res.body?.status === status ? res.body : false;
      },
      20_000,
      `message ${id} at ${status}`,
      100,
    );
  /** The bot's message sends at the emulator (not its webhook registration). */
  const botCalls = async (channel: 'telegram' | 'max') =>
    ((await sandbox(`${channel}/calls?bot_id=${bots[channel].id}`)) as unknown as BotCall[]).filter((c) =>
      /^(sendMessage|sendPhoto|sendVideo|sendDocument)$|messages/.test(c.method),
    );

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'gw-messages',
      services: ['api', 'gateway', 'queue', 'webhooks', 'sandbox'],
      env: {
        SANDBOX_STATUS_DELAY_MS: '50',
        WEBHOOK_POLL_INTERVAL_MS: '100',
        CHANNEL_MESSAGE_PRICES: JSON.stringify({
          telegram: { MARKETING: 0.01, MARKETING_LITE: 0.01, UTILITY: 0.005, SERVICE: 0, AUTHENTICATION: 0.005 },
          max: { MARKETING: 0, MARKETING_LITE: 0, UTILITY: 0, SERVICE: 0, AUTHENTICATION: 0 },
        }),
      },
    });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    gatewayDb = createDataSource(platform.infra.databaseUrl, gatewaySchema, 2);
    await gatewayDb.initialize();
    accounts = new AccountsRepository(gatewayDb);
    user = await factory.user('system', { balance: 10 });
    app = await factory.activeApp(user.userId, { message_limit: 'TIER_250' });
    await registerSandboxNumber(platform.urls.sandbox, app);
    await factory.sendableTemplate(app.id, {
      name: 'order_ready',
      category: 'UTILITY',
      header: 'Order {{1}}',
      body: 'Hi {{1}}, your order is <ready>.',
      footer: 'Reply STOP to opt out',
      buttons: [
        { type: 'URL', text: 'Track', url: 'https://shop.example/track/{{1}}', example: ['A1'] },
        { type: 'QUICK_REPLY', text: 'Thanks' },
      ] as never,
    });
    await factory.sendableTemplate(app.id, { name: 'paused_one', status: 'PAUSED', body: 'Paused {{1}}' });
    token = (await accounts.createAccount('shop', user.userId)).token;
    expect((await call('/v1/connections', { token, body: { channel: 'whatsapp', app_id: app.id } })).status).toBe(201);
    for (const channel of ['telegram', 'max'] as const) {
      bots[channel] = (await sandbox(`${channel}/bots`, {})) as unknown as { id: number; token: string };
      const res = await call('/v1/connections', { token, body: { channel, bot_token: bots[channel].token } });
      expect(res.status).toBe(201);
    }
    endpoint = await new Endpoint().open();
    const sub = await fetch(`${platform.urls.api}/api/v1/subscriptions`, {
      method: 'POST',
      headers: { authorization: user.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ url: endpoint.url(), events: ['message.sent', 'message.delivered', 'message.read'] }),
    });
    expect(sub.status).toBe(201);
    endpoint.secret = ((await sub.json()) as { secret: string }).secret;
  });

  afterAll(async () => {
    await endpoint?.close();
    await gatewayDb?.destroy();
    await factory?.close();
    await platform?.stop();
  });

  const body = (channel: string, to: string) => ({
    channel,
    to,
    template: 'order_ready',
    params: ['A-7', 'Ana & <Bob>', 'A-7'],
  });

  it("sends one template on WhatsApp, Telegram and MAX with each channel's exact call, to its final status, charged at each channel's price", async () => {
    const before = await balance();
    // Written as people write it: the channel gets the international digits.
    const wa = await call('/v1/messages', { token, body: body('whatsapp', '+55 (11) 98765-4321') });
    const tg = await call('/v1/messages', { token, body: body('telegram', '424242') });
    const mx = await call('/v1/messages', { token, body: body('max', '515151') });
    for (const res of [wa, tg, mx]) {
      expect(res.status).toBe(202);
      expect(res.body).toEqual({ id: expect.any(String), status: 'QUEUED' });
      expect(res.headers.get('location')).toBe(`/v1/messages/${res.body.id}`);
    }

    // WhatsApp: the native template with its values (the channel renders it).
    const waReport = await finalReport(wa.body.id, 'READ');
    const [sent] = (await sandbox(`whatsapp/messages?phone_number_id=${app.phoneNumberId}`)) as unknown as {
      body: Json;
    }[];
    expect(sent.body).toMatchObject({
      messaging_product: 'whatsapp',
      to: '5511987654321',
      type: 'template',
      template: { name: 'order_ready', language: { code: 'en' } },
    });
    expect(JSON.stringify(sent.body.template.components)).toContain('Ana & <Bob>');

    // Telegram: the rendered text in HTML with the values escaped, the buttons as an inline keyboard.
    const tgReport = await finalReport(tg.body.id, 'SENT');
    const [tgCall] = await botCalls('telegram');
    expect(tgCall.method).toBe('sendMessage');
    expect(tgCall.params).toMatchObject({
      chat_id: '424242',
      parse_mode: 'HTML',
      text: '<b>Order A-7</b>\n\nHi Ana &amp; &lt;Bob&gt;, your order is &lt;ready&gt;.\n\n<i>Reply STOP to opt out</i>',
      reply_markup: {
        inline_keyboard: [
          [{ text: 'Track', url: 'https://shop.example/track/A-7' }],
          [{ text: 'Thanks', callback_data: 'Thanks' }],
        ],
      },
    });

    // MAX: the same text and an inline_keyboard attachment.
    const mxReport = await finalReport(mx.body.id, 'SENT');
    const [mxCall] = await botCalls('max');
    expect(JSON.stringify(mxCall.params)).toContain('Hi Ana &amp; &lt;Bob&gt;, your order is &lt;ready&gt;.');
    expect(JSON.stringify(mxCall.params)).toContain('inline_keyboard');
    expect(JSON.stringify(mxCall.params)).toContain('https://shop.example/track/A-7');

    // One report format for every channel, never the content.
    for (const [report, channel] of [
      [waReport, 'whatsapp'],
      [tgReport, 'telegram'],
      [mxReport, 'max'],
    ] as const) {
      expect(report).toMatchObject({ channel, category: 'UTILITY', failure: null, rendered_as: null });
      expect(Object.keys(report).sort()).toEqual(
        [
          'billed_category',
          'campaign_id',
          'category',
          'channel',
          'contact',
          'charged',
          'created_at',
          'currency',
          'failure',
          'id',
          'pixel_url',
          'price',
          'pricing_type',
          'rendered_as',
          'status',
          'timeline',
          'to',
          'updated_at',
        ].sort(),
      );
      expect(JSON.stringify(report)).not.toContain('Ana');
    }
    expect(waReport.timeline.map((s: Json) => s.status)).toEqual(['QUEUED', 'SENT', 'DELIVERED', 'READ']);
    expect(tgReport.timeline.map((s: Json) => s.status)).toEqual(['QUEUED', 'SENT']);
    expect([waReport.price, tgReport.price, mxReport.price]).toEqual([0.02, 0.005, 0]);

    // Charged once each, at SENT on the channels without receipts: nothing left held.
    await waitFor(async () => (await heldHolds()) === 0, 10_000, 'holds settled');
    expect(await balance()).toBeCloseTo(before - 0.025, 4);

    // One subscriber hears of each channel's statuses in one signed format.
    await waitFor(
      () => [wa.body.id, tg.body.id, mx.body.id].every((id) => endpoint.of(id).some((e) => e.type === 'message.sent')),
      15_000,
      'message.sent of every channel at the subscriber',
    );
    expect(endpoint.rejected).toEqual([]);
    const sentEvents = [wa.body.id, tg.body.id, mx.body.id].map((id) =>
      endpoint.of(id).find((e) => e.type === 'message.sent')!,
    );
    expect(sentEvents.map((e) => e.channel)).toEqual(['whatsapp', 'telegram', 'max']);
    for (const e of sentEvents) {
      expect(Object.keys(e.data)).toEqual(expect.arrayContaining(['message_id', 'status', 'timestamp']));
    }
  });

  it('refuses bad input with field errors, a missing connection with 422, an unapproved template with 400', async () => {
    const bad = await call('/v1/messages', { token, body: { channel: 'fax', to: '', template: 'X Y', extra: 1 } });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(bad.body.errors.map((e: Json) => e.field)).toEqual(expect.arrayContaining(['channel', 'template']));

    const badTo = await call('/v1/messages', { token, body: body('telegram', 'not a chat') });
    expect(badTo.status).toBe(400);
    expect(badTo.body.errors).toEqual([expect.objectContaining({ field: 'to' })]);
    expect((await call('/v1/messages', { token, body: body('whatsapp', '+5511') })).status).toBe(400);

    const count = await call('/v1/messages', { token, body: { ...body('telegram', '1'), params: ['only one'] } });
    expect(count.status).toBe(400);
    expect(count.body.errors).toEqual([expect.objectContaining({ field: 'params' })]);

    for (const template of ['paused_one', 'no_such_template']) {
      const res = await call('/v1/messages', {
        token,
        body: { channel: 'telegram', to: '1', template, params: ['x'] },
      });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([expect.objectContaining({ field: 'template' })]);
    }

    // An account with only a Telegram bot has a channel but no templates; one with nothing has no channel.
    const lonely = (await accounts.createAccount('lonely', user.userId)).token;
    const notConnected = await call('/v1/messages', { token: lonely, body: body('max', '1') });
    expect(notConnected.status).toBe(422);
    expect(notConnected.body.type).toBe('/problems/not-connected');
  });

  it("answers 401 without a token, 403 for another account's message, 404 for an unknown one", async () => {
    const sent = await call('/v1/messages', { token, body: body('max', '777') });
    expect(sent.status).toBe(202);
    const unauth = await call(`/v1/messages/${sent.body.id}`);
    expect(unauth.status).toBe(401);
    expect(unauth.headers.get('www-authenticate')).toBe('Bearer');
    expect((await call('/v1/messages', { body: body('max', '1') })).status).toBe(401);

    const other = (await accounts.createAccount('other', user.userId)).token;
    expect((await call(`/v1/messages/${sent.body.id}`, { token: other })).status).toBe(403);
    expect((await call(`/v1/messages/00000000-0000-7000-8000-000000000000`, { token })).status).toBe(404);
    expect((await call(`/v1/messages`, { token: other })).body).toEqual({ data: [], next_cursor: null });
  });

  it('replays an Idempotency-Key: one message, the same answer; another body with the key is 422', async () => {
    const headers = { 'Idempotency-Key': 'campaign-42-ana' };
    const first = await call('/v1/messages', { token, body: body('telegram', '9001'), headers });
    const again = await call('/v1/messages', { token, body: body('telegram', '9001'), headers });
    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    expect(again.body.id).toBe(first.body.id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const other = await call('/v1/messages', { token, body: body('telegram', '9002'), headers });
    expect(other.status).toBe(422);
    await finalReport(first.body.id, 'SENT');
    const sends = (await botCalls('telegram')).filter((c) => String(c.params.chat_id) === '9001');
    expect(sends).toHaveLength(1);
  });

  it("lists the account's messages newest first, filtered and paged by cursor", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await call('/v1/messages', { token, body: body('max', String(6000 + i)) });
      ids.push(res.body.id);
    }
    const pages: string[][] = [];
    let cursor: string | null = null;
    do {
      const q: string = `?channel=max&limit=2${cursor ? `&cursor=${cursor}` : ''}`;
      const res = await call(`/v1/messages${q}`, { token });
      expect(res.status).toBe(200);
      pages.push(res.body.data.map((m: Json) => m.id));
      expect(res.body.data.every((m: Json) => m.channel === 'max')).toBe(true);
      cursor = res.body.next_cursor;
    } while (cursor);
    const listed = pages.flat();
    expect(listed.slice(0, 5)).toEqual([...ids].reverse());
    expect(new Set(listed).size).toBe(listed.length);
    expect(pages.slice(0, -1).every((p) => p.length === 2)).toBe(true);

    const wa = await call('/v1/messages?channel=whatsapp', { token });
    expect(wa.body.data.every((m: Json) => m.channel === 'whatsapp')).toBe(true);
    const future = await call('/v1/messages?from=2999-01-01', { token });
    expect(future.body.data).toEqual([]);
    for (const q of ['?from=2026-02-30', '?status=LOST', '?limit=0', '?from=2026-11-02&to=2026-11-01', '?cursor=x']) {
      const res = await call(`/v1/messages${q}`, { token });
      expect(res.status).toBe(400);
    }
  });
  it('limits each account token to RATE_LIMIT_PER_SECOND like the api: RateLimit fields, then 429 with Retry-After', async () => {
    const busy = (await accounts.createAccount('busy', user.userId)).token;
    // Batches of concurrent requests until the bucket (100, refilled at 100/s) runs dry: 300 at once
    // reach the guard well within a second even on a loaded machine, more than a bucket and its refill.
    const answers: Awaited<ReturnType<typeof call>>[] = [];
    for (let round = 0; round < 5 && !answers.some((a) => a.status === 429); round++) {
      answers.push(
        ...(await Promise.all(Array.from({ length: 300 }, () => call('/v1/messages?limit=1', { token: busy })))),
      );
    }
    const ok = answers.filter((a) => a.status === 200);
    const limited = answers.filter((a) => a.status === 429);
    expect(ok.length).toBeGreaterThanOrEqual(100);
    expect(limited.length).toBeGreaterThan(0);
    expect(answers.every((a) => a.status === 200 || a.status === 429)).toBe(true);
    expect(ok[0].headers.get('ratelimit-policy')).toBe('"default";q=100;w=1');
    expect(Number(limited[0].headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited[0].body.type).toBe('/problems/rate-limited');
    // Another token of the same user has a bucket of its own.
    expect((await call('/v1/messages?limit=1', { token })).status).toBe(200);
  });

  it('answers sends made at once each on its own: accepted ones queued once each, refusals with their own problem', async () => {
    const sends = [
      body('max', '8101'),
      { channel: 'max', to: '8102', template: 'paused_one', params: ['x'] },
      body('whatsapp', '5511900008103'),
      { ...body('telegram', '8104'), params: ['only one'] },
      body('telegram', '8105'),
    ];
    const answers = await Promise.all(sends.map((b) => call('/v1/messages', { token, body: b })));
    expect(answers.map((a) => a.status)).toEqual([202, 400, 202, 400, 202]);
    const accepted = [answers[0], answers[2], answers[4]].map((a) => a.body.id as string);
    expect(new Set(accepted).size).toBe(3);
    expect(answers[1].headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(answers[1].body.errors).toEqual([expect.objectContaining({ field: 'template' })]);
    expect(answers[3].body.errors).toEqual([expect.objectContaining({ field: 'params' })]);
    // Each accepted send is its own message, to its own recipient.
    const reports = await Promise.all(accepted.map((id) => call(`/v1/messages/${id}`, { token })));
    expect(reports.map((r) => r.body.channel)).toEqual(['max', 'whatsapp', 'telegram']);
  });

  it('refuses at once a token revoked and a connection deleted a moment ago', async () => {
    const { token: fleeting, tokenId } = await accounts
      .createToken((await accounts.findByToken(token))!.id)
      .then((t) => t!);
    expect((await call('/v1/messages', { token: fleeting, body: body('max', '8201') })).status).toBe(202);
    expect(await accounts.revokeToken(tokenId)).toBe(true);
    expect((await call('/v1/messages', { token: fleeting, body: body('max', '8202') })).status).toBe(401);

    const connections = (await call('/v1/connections', { token })).body as unknown as Json[];
    const max = connections.find((c) => c.channel === 'max' && c.state !== 'disconnected')!;
    expect((await call(`/v1/connections/${max.id}`, { token, method: 'DELETE' })).status).toBe(204);
    const refused = await call('/v1/messages', { token, body: body('max', '8203') });
    expect(refused.status).toBe(422);
    expect(refused.body.type).toBe('/problems/not-connected');
  });
});
