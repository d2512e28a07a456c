import { createDataSource } from '@app/database';
import { waitFor } from '@app/testing';
import { AccountsRepository } from '../../apps/gateway/src/accounts/accounts.repository';
import { gatewaySchema } from '../../apps/gateway/src/database/schema';
import type { AppEntity } from '../../apps/api/src/wa-apps/app.entity';
import { ApiFactory, TestUser } from '../support/factories';
import { Platform, startPlatform } from '../support/platform';
import { registerSandboxBot, registerSandboxNumber } from '../support/sandbox';
import { Delivered, Endpoint } from '../support/webhook-endpoint';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const prices = (p: number) =>
  Object.fromEntries(['MARKETING', 'MARKETING_LITE', 'UTILITY', 'SERVICE', 'AUTHENTICATION'].map((c) => [c, p]));

/**
 * Opt-outs honoured on every send path, on the real services and emulators: a STOP written on
 * Telegram, WhatsApp's 131050, START, and a blocked bot, each refusing (422 recipient-opted-out,
 * nothing held) exactly the sends it forbids through the api and the gateway, and each change
 * reaching a webhook subscriber as contact.opted_out / contact.opted_in.
 */
describe('consent and failover across channels', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let user: TestUser;
  let app: AppEntity;
  let token: string;
  let bot: { id: number; token: string };
  const endpoint = new Endpoint();

  const http = async (
    base: string,
    auth: string,
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: auth,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : undefined) as Json };
  };
  const api = (method: string, path: string, body?: unknown) =>
    http(`${platform.urls.api}/api/v1`, user.auth, method, path, body);
  const gateway = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    http(platform.urls.gateway, `Bearer ${token}`, method, path, body, headers);
  const sandbox = async (path: string, body: unknown) => {
    const res = await fetch(`${platform.urls.sandbox}/_sandbox/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBeLessThan(300);
  };
  const gatewaySend = (channel: string, to: string, template: string) =>
    gateway('POST', '/v1/messages', { channel, to, template, params: ['Ann'] });
  const apiSend = (phone: string, template: string) =>
    api('POST', `/wa/apps/${app.id}/messages`, {
      phone,
      type: 'TEMPLATE',
      template: { name: template, components: { body: { values: ['Ann'] } } },
    });
  const balance = async () => (await api('GET', `/users/${user.userId}/balances`)).body.balance as number;
  /**
   * The balance once no hold of the user is open: earlier sends of the suite are captured or released
   * in their own time, and a figure read while one is still open would move under the next check.
   */
  const settledBalance = async () => {
    await waitFor(
      async () => {
        const [{ n }] = await factory.dataSource.query<{ n: number }[]>(
          `SELECT count(*)::int AS n FROM holds WHERE user_id = $1 AND status = 'HELD'`,
          [user.userId],
        );
        return n === 0;
      },
      30_000,
      'no hold left open',
      100,
    );
    return balance();
  };
  /** The consent event for this address the subscriber got, once it got it. */
  const consentEvent = (type: string, address: string, match: (e: Delivered) => boolean = () => true) =>
    waitFor(
      () => endpoint.events.find((e) => e.type === type && e.data.address === address && match(e)) ?? false,
      30_000,
      `${type} for ${address} at the subscriber`,
      100,
    );
  const expectOptedOut = (res: { status: number; body: Json }, channel: string, purpose: string) => {
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ type: '/problems/recipient-opted-out', status: 422, channel, purpose });
    // Unix seconds, as GET consent answers it.
    expect(Number.isInteger(res.body.since)).toBe(true);
    expect(res.body.since as number).toBeGreaterThan(Date.now() / 1000 - 120);
  };

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'e2e-consent',
      services: ['api', 'gateway', 'queue', 'webhooks', 'sandbox'],
      env: {
        SANDBOX_STATUS_DELAY_MS: '50',
        SANDBOX_MODERATION_DELAY_MS: '100',
        WEBHOOK_POLL_INTERVAL_MS: '100',
        CHANNEL_MESSAGE_PRICES: JSON.stringify({ telegram: prices(0.01), max: prices(0) }),
        FAILOVER_RECEIPT_SECONDS: '2',
        SETTLEMENT_INTERVAL_MS: '500',
      },
    });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    user = await factory.user('system', { balance: 10 });
    app = await factory.activeApp(user.userId, { message_limit: 'TIER_UNLIMITED' });
    await registerSandboxNumber(platform.urls.sandbox, app);
    // Submitted through the channel, so the emulator knows which one is marketing (131050 concerns marketing only).
    for (const [name, category] of [
      ['promo', 'MARKETING'],
      ['notice', 'UTILITY'],
    ]) {
      const created = await api('POST', `/wa/apps/${app.id}/templates`, {
        name,
        language: 'en',
        category,
        body: 'Hello {{1}}',
        body_example: 'Hello Ann',
      });
      expect(created.status).toBe(201);
    }
    await waitFor(
      async () => {
        const list = (await api('GET', `/wa/apps/${app.id}/templates`)).body as Json[];
        return list.length === 2 && list.every((t) => t.status === 'APPROVED');
      },
      30_000,
      'both templates approved',
      100,
    );
    const gatewayDb = createDataSource(platform.infra.databaseUrl, gatewaySchema, 1);
    await gatewayDb.initialize();
    token = (await new AccountsRepository(gatewayDb).createAccount('consent', user.userId)).token;
    await gatewayDb.destroy();
    expect((await gateway('POST', '/v1/connections', { channel: 'whatsapp', app_id: app.id })).status).toBe(201);
    bot = await registerSandboxBot(platform.urls.sandbox, 'telegram');
    expect((await gateway('POST', '/v1/connections', { channel: 'telegram', bot_token: bot.token })).status).toBe(201);
    await endpoint.open();
    const sub = await api('POST', '/subscriptions', {
      url: endpoint.url(),
      events: ['contact.opted_out', 'contact.opted_in', 'message.sent', 'message.failed'],
    });
    expect(sub.status).toBe(201);
    endpoint.secret = sub.body.secret as string;
  });

  afterAll(async () => {
    await endpoint.close();
    await factory?.close();
    await platform?.stop();
  });

  it('STOP on Telegram refuses marketing to that chat (nothing held) and lets a UTILITY message go; START reverses it', async () => {
    const chat = '424242';
    await sandbox('telegram/inbound', { bot: String(bot.id), from: chat, text: 'Stop!' });
    const out = await consentEvent('contact.opted_out', chat);
    expect(out).toMatchObject({
      channel: 'telegram',
      app_id: null,
      data: { channel: 'telegram', purpose: 'marketing', state: 'opted_out', source: 'keyword' },
    });
    expect(out.data.evidence).toContain('Stop!');

    const before = await settledBalance();
    expectOptedOut(await gatewaySend('telegram', chat, 'promo'), 'telegram', 'marketing');
    expect(await balance()).toBe(before);
    expect((await gatewaySend('telegram', chat, 'notice')).status).toBe(202);
    // Another chat of the same bot is not affected.
    expect((await gatewaySend('telegram', '424243', 'promo')).status).toBe(202);

    await sandbox('telegram/inbound', { bot: String(bot.id), from: chat, text: 'start' });
    await consentEvent('contact.opted_in', chat, (e) => e.data.state === 'opted_in');
    expect((await gatewaySend('telegram', chat, 'promo')).status).toBe(202);
  });

  it('WhatsApp 131050 refuses the next marketing send to that phone through the api and the gateway; START reverses it', async () => {
    const phone = '79990005555';
    expect((await apiSend(phone, 'promo')).status).toBe(201);
    const out = await consentEvent('contact.opted_out', phone);
    expect(out.data).toMatchObject({ channel: 'whatsapp', purpose: 'marketing', source: 'channel' });
    expect(out.data.evidence).toContain('131050');

    const before = await settledBalance();
    expectOptedOut(await apiSend(phone, 'promo'), 'whatsapp', 'marketing');
    expectOptedOut(await gatewaySend('whatsapp', phone, 'promo'), 'whatsapp', 'marketing');
    expect(await balance()).toBe(before);
    expect((await apiSend(phone, 'notice')).status).toBe(201);
    expect((await gatewaySend('whatsapp', phone, 'notice')).status).toBe(202);

    await sandbox('whatsapp/inbound', { phone_number_id: app.phoneNumberId, from: phone, text: 'START' });
    await consentEvent('contact.opted_in', phone, (e) => e.data.state === 'opted_in');
    expect((await apiSend(phone, 'promo')).status).toBe(201);
  });

  it('a chat that blocked the bot is unreachable for every message until the person writes again', async () => {
    const chat = '5554444';
    const first = await gatewaySend('telegram', chat, 'notice');
    expect(first.status).toBe(202);
    const out = await consentEvent('contact.opted_out', chat);
    expect(out.data).toMatchObject({ purpose: 'all', source: 'channel' });
    const report = await gateway('GET', `/v1/messages/${first.body.id}`);
    expect(report.body).toMatchObject({ status: 'FAILED', failure: { code: 'recipient_blocked' } });

    expectOptedOut(await gatewaySend('telegram', chat, 'notice'), 'telegram', 'all');
    expectOptedOut(await gatewaySend('telegram', chat, 'promo'), 'telegram', 'all');

    await sandbox('telegram/inbound', { bot: String(bot.id), from: chat, text: 'hello again' });
    const back = await consentEvent('contact.opted_in', chat);
    expect(back.data).toMatchObject({ purpose: 'all', state: 'unknown', source: 'channel' });
    expect((await gatewaySend('telegram', chat, 'notice')).status).toBe(202);
  });

  it('a contact refused as not on WhatsApp is delivered on Telegram under one message id, charged once', async () => {
    const contact = await gateway('POST', '/v1/contacts', {
      external_id: 'fo-1',
      identities: { whatsapp: '79990013333', telegram: '313131' },
    });
    expect(contact.status).toBe(201);
    const before = await settledBalance();
    const request = { contact: 'ext:fo-1', channels: ['whatsapp', 'telegram'], template: 'notice', params: ['Ann'] };
    const sent = await gateway('POST', '/v1/messages', request, { 'Idempotency-Key': 'fo-1-once' });
    expect(sent.status).toBe(202);
    const report = await waitFor(
      async () => {
        const r = await gateway('GET', `/v1/messages/${sent.body.id}`);
        return r.body?.status === 'SENT' && r.body.channel === 'telegram' ? r.body : false;
      },
      30_000,
      'the message carried by Telegram',
      100,
    );
    expect(report.id).toBe(sent.body.id);
    expect(report.attempts).toEqual([
      expect.objectContaining({
        channel: 'whatsapp',
        status: 'FAILED',
        failure: expect.objectContaining({ code: '131026' }),
      }),
      expect.objectContaining({ channel: 'telegram', status: 'SENT', failure: null }),
    ]);
    // Held for the attempt in flight, released for the failed one, captured once: Telegram's price.
    let seen: number | undefined;
    await waitFor(
      async () => Math.abs((seen = await balance()) - (before - 0.01)) < 1e-9,
      30_000,
      'one charge of 0.01',
    ).catch((err: Error) => {
      throw new Error(`${err.message} (balance before ${before}, last seen ${seen})`);
    });
    const calls = (await (
      await fetch(`${platform.urls.sandbox}/_sandbox/telegram/calls?bot_id=${bot.id}`)
    ).json()) as Json[];
    expect(calls.filter((c) => c.outcome === 'accepted' && String(c.params.chat_id) === '313131')).toHaveLength(1);
    // The Idempotency-Key covers the whole: the same message id, nothing sent again.
    const again = await gateway('POST', '/v1/messages', request, { 'Idempotency-Key': 'fo-1-once' });
    expect(again.body.id).toBe(sent.body.id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    // Each attempt's events reach the subscriber with its channel.
    const failedOnWhatsApp = await waitFor(
      () => endpoint.events.find((e) => e.type === 'message.failed' && e.data.message_id === sent.body.id) ?? false,
      10_000,
      'the WhatsApp attempt failed at the subscriber',
    );
    expect(failedOnWhatsApp).toMatchObject({ channel: 'whatsapp', data: { error: { code: '131026' } } });
    await waitFor(
      () =>
        endpoint.events.some(
          (e) => e.type === 'message.sent' && e.channel === 'telegram' && e.data.recipient === '313131',
        ),
      10_000,
      'the Telegram attempt sent at the subscriber',
    );
    // The list shows the message once, under its one id.
    const listed = await gateway('GET', '/v1/messages?limit=100');
    const ids = (listed.body.data as Json[]).map((m) => m.id);
    expect(ids).toContain(sent.body.id);
    expect((listed.body.data as Json[]).filter((m) => m.attempts?.length === 2)).toHaveLength(1);
  });

  it('an attempt with no receipt in FAILOVER_RECEIPT_SECONDS moves on to the next channel', async () => {
    await gateway('POST', '/v1/contacts', {
      external_id: 'fo-2',
      identities: { whatsapp: '79990021234', telegram: '323232' },
    });
    // WhatsApp answers 500 to every send of the number: the attempt stays queued, without a receipt.
    await sandbox('whatsapp/faults', { mode: '500', phone_number_id: app.phoneNumberId });
    try {
      const sent = await gateway('POST', '/v1/messages', {
        contact: 'ext:fo-2',
        channels: ['whatsapp', 'telegram'],
        template: 'notice',
        params: ['Ann'],
      });
      expect(sent.status).toBe(202);
      const report = await waitFor(
        async () => {
          const r = await gateway('GET', `/v1/messages/${sent.body.id}`);
          return r.body?.channel === 'telegram' && r.body.status === 'SENT' ? r.body : false;
        },
        30_000,
        'the message carried by Telegram after no receipt on WhatsApp',
        100,
      );
      expect(report.attempts.map((a: Json) => [a.channel, a.status, a.failure?.code ?? null])).toEqual([
        ['whatsapp', 'FAILED', 'no_receipt'],
        ['telegram', 'SENT', null],
      ]);
    } finally {
      await fetch(`${platform.urls.sandbox}/_sandbox/whatsapp/faults`, { method: 'DELETE' });
    }
  });
});
