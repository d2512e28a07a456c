import { waitFor } from '@app/testing';
import { createDataSource } from '@app/database';
import { DataSource } from 'typeorm';
import { ApiFactory, TestUser } from '../../../test/support/factories';
import { Platform, startPlatform } from '../../../test/support/platform';
import { registerSandboxNumber, sandboxControl } from '../../../test/support/sandbox';
import { AccountsRepository } from '../src/accounts/accounts.repository';
import { gatewaySchema } from '../src/database/schema';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * Free-form `content` sends through `POST /v1/messages`, through every service: text and media by
 * URL reach the Telegram and MAX emulators from an account with no WhatsApp app; each channel's
 * limits are refused before any hold; WhatsApp sends only inside the customer-service window,
 * naming the templates that could be sent instead while it is closed.
 */
describe('gateway content sends', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let gatewayDb: DataSource;
  let botUser: TestUser;
  let waUser: TestUser;
  let botToken: string;
  let waToken: string;
  let app: Awaited<ReturnType<ApiFactory['activeApp']>>;
  const bots: Record<'telegram' | 'max', { id: number; token: string }> = {} as never;
  const customer = '5511987650001';

  const call = async (path: string, init: { token: string; body?: unknown; headers?: Json }) => {
    const res = await fetch(`${platform.urls.gateway}${path}`, {
      method: init.body === undefined ? 'GET' : 'POST',
      headers: {
        Authorization: `Bearer ${init.token}`,
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
  /** Every hold ever taken from the user's balance (a refused send takes none). */
  const holds = async (user: TestUser) =>
    (
      (await factory.dataSource.query(`SELECT count(*)::int AS n FROM holds WHERE user_id = $1`, [user.userId])) as {
        n: number;
      }[]
    )[0].n;
  const reportAt = (token: string, id: string, statuses: string[]) =>
    waitFor(
      async () => {
        const res = await call(`/v1/messages/${id}`, { token });
        return statuses.includes(res.body?.status) ? res.body : false;
      },
      20_000,
      `message ${id} at ${statuses.join(' or ')}`,
      100,
    );
  const botCalls = async (channel: 'telegram' | 'max') =>
    ((await sandbox(`${channel}/calls?bot_id=${bots[channel].id}`)) as unknown as Json[]).filter((c) =>
      /^(sendMessage|sendPhoto|sendVideo|sendAudio|sendDocument|messages)$/.test(c.method),
    );

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'gw-content',
      services: ['api', 'gateway', 'queue', 'sandbox'],
      env: { SANDBOX_STATUS_DELAY_MS: '50' },
    });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    gatewayDb = createDataSource(platform.infra.databaseUrl, gatewaySchema, 2);
    await gatewayDb.initialize();
    const accounts = new AccountsRepository(gatewayDb);

    // A business on Telegram and MAX alone: no WhatsApp app, no template.
    botUser = await factory.user('system', { balance: 10 });
    botToken = (await accounts.createAccount('bots only', botUser.userId)).token;
    for (const channel of ['telegram', 'max'] as const) {
      bots[channel] = (await sandbox(`${channel}/bots`, {})) as unknown as { id: number; token: string };
      const res = await call('/v1/connections', { token: botToken, body: { channel, bot_token: bots[channel].token } });
      expect(res.status).toBe(201);
    }

    // A business on WhatsApp, with approved templates to offer while the window is closed.
    waUser = await factory.user('system', { balance: 10 });
    app = await factory.activeApp(waUser.userId, { message_limit: 'TIER_250' });
    await registerSandboxNumber(platform.urls.sandbox, app);
    await factory.sendableTemplate(app.id, { name: 'order_ready', category: 'UTILITY', body: 'Order {{1}} ready' });
    await factory.sendableTemplate(app.id, { name: 'paused_one', status: 'PAUSED', body: 'Paused {{1}}' });
    await factory.sendableTemplate(app.id, { name: 'login_code', category: 'AUTHENTICATION', body: 'Code {{1}}' });
    waToken = (await accounts.createAccount('whatsapp shop', waUser.userId)).token;
    expect(
      (await call('/v1/connections', { token: waToken, body: { channel: 'whatsapp', app_id: app.id } })).status,
    ).toBe(201);
  });

  afterAll(async () => {
    await gatewayDb?.destroy();
    await factory?.close();
    await platform?.stop();
  });

  it('sends text and an image by URL on Telegram and MAX from an account with no WhatsApp app', async () => {
    const image = { type: 'image', url: 'https://cdn.example.com/parcel.jpg', caption: 'Your <parcel>' };
    const sends = {
      tgText: await call('/v1/messages', {
        token: botToken,
        body: { channel: 'telegram', to: '424242', content: { type: 'text', text: 'Hi & welcome' } },
      }),
      tgImage: await call('/v1/messages', {
        token: botToken,
        body: { channel: 'telegram', to: '424242', content: image },
      }),
      mxText: await call('/v1/messages', {
        token: botToken,
        body: { channel: 'max', to: '515151', content: { type: 'text', text: 'Hi & welcome' } },
      }),
      mxImage: await call('/v1/messages', { token: botToken, body: { channel: 'max', to: '515151', content: image } }),
    };
    for (const [name, res] of Object.entries(sends)) {
      expect([name, res.status]).toEqual([name, 202]);
      expect(res.body).toEqual({
        id: expect.any(String),
        status: 'QUEUED',
        rendered_as: name.endsWith('Text') ? 'text' : 'image',
      });
    }
    for (const res of Object.values(sends)) {
      const report = await reportAt(botToken, res.body.id, ['SENT']);
      expect(report.category).toBe('SERVICE');
    }

    const tg = await botCalls('telegram');
    expect(tg.map((c) => c.method)).toEqual(['sendMessage', 'sendPhoto']);
    expect(tg[0].params).toMatchObject({ chat_id: '424242', text: 'Hi &amp; welcome' });
    expect(tg[1].params).toMatchObject({
      chat_id: '424242',
      photo: 'https://cdn.example.com/parcel.jpg',
      caption: 'Your &lt;parcel&gt;',
    });

    const mx = await botCalls('max');
    expect(mx).toHaveLength(2);
    expect(JSON.stringify(mx[0].params)).toContain('Hi &amp; welcome');
    expect(JSON.stringify(mx[1].params)).toContain('https://cdn.example.com/parcel.jpg');
    expect(JSON.stringify(mx[1].params)).toContain('Your &lt;parcel&gt;');
  });

  it("refuses content over a channel's limits, naming the field, before any hold", async () => {
    const before = await holds(botUser);
    const longText = await call('/v1/messages', {
      token: botToken,
      body: { channel: 'max', to: '515151', content: { type: 'text', text: 'x'.repeat(4001) } },
    });
    expect(longText.status).toBe(400);
    expect(longText.body.errors).toEqual([expect.objectContaining({ field: 'content.text' })]);

    const longCaption = await call('/v1/messages', {
      token: botToken,
      body: {
        channel: 'telegram',
        to: '424242',
        content: { type: 'image', url: 'https://cdn.example.com/a.jpg', caption: 'c'.repeat(1025) },
      },
    });
    expect(longCaption.status).toBe(400);
    expect(longCaption.body.errors).toEqual([expect.objectContaining({ field: 'content.caption' })]);

    const tooLongAnywhere = await call('/v1/messages', {
      token: botToken,
      body: { channel: 'telegram', to: '424242', content: { type: 'text', text: 'x'.repeat(4097) } },
    });
    expect(tooLongAnywhere.status).toBe(400);
    expect(tooLongAnywhere.body.errors.map((e: Json) => e.field)).toEqual(['content.text']);

    const both = await call('/v1/messages', {
      token: botToken,
      body: { channel: 'telegram', to: '424242', template: 'order_ready', content: { type: 'text', text: 'Hi' } },
    });
    expect(both.status).toBe(400);
    expect(both.body.errors.map((e: Json) => e.field)).toEqual(['content']);
    const neither = await call('/v1/messages', { token: botToken, body: { channel: 'telegram', to: '424242' } });
    expect(neither.status).toBe(400);
    expect(neither.body.errors.map((e: Json) => e.field)).toEqual(['template']);
    const misplaced = await call('/v1/messages', {
      token: botToken,
      body: { channel: 'telegram', to: '424242', content: { type: 'text', text: 'Hi', url: 'https://a.example/x' } },
    });
    expect(misplaced.status).toBe(400);
    expect(misplaced.body.errors.map((e: Json) => e.field)).toEqual(['content.url']);

    // A template still needs the WhatsApp app; content does not.
    const template = await call('/v1/messages', {
      token: botToken,
      body: { channel: 'telegram', to: '424242', template: 'order_ready' },
    });
    expect(template.status).toBe(422);
    expect(template.body.type).toBe('/problems/no-template-source');
    expect(await holds(botUser)).toBe(before);
  });

  it('on WhatsApp: 422 window-closed naming the templates and holding nothing, then sent once the customer writes', async () => {
    const content = { type: 'text', text: 'We have your question' };
    const closed = await call('/v1/messages', { token: waToken, body: { channel: 'whatsapp', to: customer, content } });
    expect(closed.status).toBe(422);
    expect(closed.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(closed.body).toMatchObject({
      type: '/problems/window-closed',
      templates: [
        { name: 'login_code', language: 'en', category: 'AUTHENTICATION' },
        { name: 'order_ready', language: 'en', category: 'UTILITY' },
      ],
    });
    expect(await holds(waUser)).toBe(0);

    const inbound = await fetch(`${platform.urls.sandbox}/_sandbox/whatsapp/inbound`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ phone_number_id: app.phoneNumberId, from: customer, text: 'Where is my order?' }),
    });
    expect(inbound.status).toBeLessThan(300);
    const headers = { 'Idempotency-Key': 'reply-1' };
    const open = await waitFor(
      async () => {
        const res = await call('/v1/messages', {
          token: waToken,
          body: { channel: 'whatsapp', to: customer, content },
          headers,
        });
        return res.status === 202 ? res : false;
      },
      20_000,
      'the window opened by the inbound message',
      250,
    );
    expect(open.body).toMatchObject({ status: 'QUEUED', rendered_as: 'text' });

    // The same Idempotency-Key answers the same message.
    const again = await call('/v1/messages', {
      token: waToken,
      body: { channel: 'whatsapp', to: customer, content },
      headers,
    });
    expect(again.status).toBe(202);
    expect(again.body.id).toBe(open.body.id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');

    const report = await reportAt(waToken, open.body.id, ['DELIVERED', 'READ']);
    expect(report.category).toBe('SERVICE');
    const sent = ((await sandbox(`whatsapp/messages?phone_number_id=${app.phoneNumberId}`)) as unknown as Json[]).map(
      (m) => m.body,
    );
    expect(sent).toEqual([
      expect.objectContaining({ to: customer, type: 'text', text: { body: 'We have your question' } }),
    ]);

    // A caption WhatsApp cannot carry is refused, naming the field.
    const audio = await call('/v1/messages', {
      token: waToken,
      body: {
        channel: 'whatsapp',
        to: customer,
        content: { type: 'audio', url: 'https://cdn.example.com/a.ogg', caption: 'listen' },
      },
    });
    expect(audio.status).toBe(400);
    expect(audio.body.errors.map((e: Json) => e.field)).toEqual(['content.caption']);
  });

  it('sends to a business-scoped user id as recipient; an authentication template to one is 422 with a reason', async () => {
    const userId = 'US.13491208655302741918';
    const before = await holds(waUser);
    const auth = await call('/v1/messages', {
      token: waToken,
      body: { channel: 'whatsapp', to: userId, template: 'login_code', params: ['123456'] },
    });
    expect(auth.status).toBe(422);
    expect(auth.body).toMatchObject({ type: '/problems/template-not-for-user-id', detail: expect.any(String) });
    expect(await holds(waUser)).toBe(before);

    const utility = await call('/v1/messages', {
      token: waToken,
      body: { channel: 'whatsapp', to: userId, template: 'order_ready', params: ['A-1'] },
    });
    expect(utility.status).toBe(202);
    await waitFor(
      async () =>
        ((await sandbox(`whatsapp/messages?phone_number_id=${app.phoneNumberId}`)) as unknown as Json[]).some(
          (m) => m.body.recipient === userId && m.body.to === undefined && m.body.type === 'template',
        ),
      10_000,
      'the template sent to the user id',
      100,
    );
  });

  it("over a contact's route, leaves WhatsApp out while its window is closed and sends on the next channel", async () => {
    const waBot = (await sandbox('telegram/bots', {})) as unknown as { id: number; token: string };
    const connected = await call('/v1/connections', {
      token: waToken,
      body: { channel: 'telegram', bot_token: waBot.token },
    });
    expect(connected.status).toBe(201);
    const contact = await call('/v1/contacts', {
      token: waToken,
      body: { name: 'Ana', identities: { whatsapp: '+55 11 98765-0002', telegram: '777001' } },
    });
    expect(contact.status).toBe(201);
    const content = { type: 'text', text: 'Your parcel left the warehouse' };
    const over = await call('/v1/messages', {
      token: waToken,
      body: { contact: contact.body.id, channels: ['whatsapp', 'telegram'], content },
    });
    expect(over.status).toBe(202);
    const report = await reportAt(waToken, over.body.id, ['SENT']);
    expect(report.channel).toBe('telegram');
    const calls = (await sandbox(`telegram/calls?bot_id=${waBot.id}`)) as unknown as Json[];
    expect(calls.map((c) => [c.method, c.params.chat_id, c.params.text])).toContainEqual([
      'sendMessage',
      '777001',
      'Your parcel left the warehouse',
    ]);

    // Each channel's limits are checked for every channel of the route.
    const long = await call('/v1/messages', {
      token: waToken,
      body: {
        contact: contact.body.id,
        channels: ['telegram', 'whatsapp'],
        content: { type: 'text', text: 'x'.repeat(4097) },
      },
    });
    expect(long.status).toBe(400);
    const onlyWhatsApp = await call('/v1/messages', {
      token: waToken,
      body: { contact: contact.body.id, channels: ['whatsapp'], content },
    });
    expect(onlyWhatsApp.status).toBe(422);
    expect(onlyWhatsApp.body.type).toBe('/problems/window-closed');
  });
});
