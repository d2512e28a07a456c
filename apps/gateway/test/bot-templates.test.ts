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
 * Bot templates (`/v1/templates`), through every service: a Telegram-only account creates one and
 * sends it (the emulator receives the filled text); versions; bad bodies; accounts never see each
 * other's; one name that is both a Meta and a bot template sends the right one on each channel of
 * a failover route.
 */
describe('gateway bot templates', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let gatewayDb: DataSource;
  let botToken: string;
  let otherToken: string;
  let waToken: string;
  let waUser: TestUser;
  let app: Awaited<ReturnType<ApiFactory['activeApp']>>;
  let bot: { id: number; token: string };
  let waBot: { id: number; token: string };

  const call = async (path: string, init: { token: string; body?: unknown; method?: string }) => {
    const res = await fetch(`${platform.urls.gateway}${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: {
        Authorization: `Bearer ${init.token}`,
        ...(init.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
      },
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as Json };
  };
  const sandbox = async (path: string, body?: unknown) =>
    (await sandboxControl<Json & Json[]>(platform.urls.sandbox, path, body)).body;
  const fields = (res: { body: Json }) => ((res.body.errors ?? []) as Json[]).map((e) => e.field);
  const sentTexts = async (botId: number) =>
    ((await sandbox(`telegram/calls?bot_id=${botId}`)) as unknown as Json[])
      .filter((c) => c.method === 'sendMessage')
      .map((c) => [String(c.params.chat_id), c.params.text]);
  const reportAt = (token: string, id: string, statuses: string[]) =>
    waitFor(
      async () => {
        const res = await call(`/v1/messages/${id}`, { token });
        return statuses.includes(res.body?.status) ? res.body : false;
      },
      30_000,
      `message ${id} at ${statuses.join(' or ')}`,
      100,
    );

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'gw-bot-templates',
      services: ['api', 'gateway', 'queue', 'sandbox'],
      env: { SANDBOX_STATUS_DELAY_MS: '50' },
    });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    gatewayDb = createDataSource(platform.infra.databaseUrl, gatewaySchema, 2);
    await gatewayDb.initialize();
    const accounts = new AccountsRepository(gatewayDb);

    // A business on Telegram alone, and another one.
    const botUser = await factory.user('system', { balance: 10 });
    botToken = (await accounts.createAccount('telegram only', botUser.userId)).token;
    bot = (await sandbox('telegram/bots', {})) as unknown as { id: number; token: string };
    expect(
      (await call('/v1/connections', { token: botToken, body: { channel: 'telegram', bot_token: bot.token } })).status,
    ).toBe(201);
    const otherUser = await factory.user('system', { balance: 10 });
    otherToken = (await accounts.createAccount('other', otherUser.userId)).token;
    const otherBot = (await sandbox('telegram/bots', {})) as unknown as { id: number; token: string };
    await call('/v1/connections', { token: otherToken, body: { channel: 'telegram', bot_token: otherBot.token } });

    // A business on WhatsApp and Telegram, whose Meta template `notice` is also a bot template.
    waUser = await factory.user('system', { balance: 10 });
    app = await factory.activeApp(waUser.userId, { message_limit: 'TIER_250' });
    await registerSandboxNumber(platform.urls.sandbox, app);
    await factory.sendableTemplate(app.id, { name: 'notice', category: 'UTILITY', body: 'Meta notice for {{1}}' });
    waToken = (await accounts.createAccount('whatsapp and telegram', waUser.userId)).token;
    expect(
      (await call('/v1/connections', { token: waToken, body: { channel: 'whatsapp', app_id: app.id } })).status,
    ).toBe(201);
    waBot = (await sandbox('telegram/bots', {})) as unknown as { id: number; token: string };
    expect(
      (await call('/v1/connections', { token: waToken, body: { channel: 'telegram', bot_token: waBot.token } })).status,
    ).toBe(201);
  });

  afterAll(async () => {
    await gatewayDb?.destroy();
    await factory?.close();
    await platform?.stop();
  });

  it('a Telegram-only account creates a template and sends it: the bot receives the filled text', async () => {
    const created = await call('/v1/templates', {
      token: botToken,
      body: { name: 'welcome', language: 'en', content: { type: 'text', text: 'Hello {{1}}' } },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      name: 'welcome',
      language: 'en',
      category: 'UTILITY',
      source: 'bot',
      channels: ['telegram', 'max'],
      version: 1,
      status: null,
      quality: null,
      content: { type: 'text', text: 'Hello {{1}}' },
      params: 1,
      created_at: expect.any(Number),
    });
    expect(Number.isInteger(created.body.created_at)).toBe(true);

    const sent = await call('/v1/messages', {
      token: botToken,
      body: { channel: 'telegram', to: '424242', template: 'welcome', params: ['Ann'] },
    });
    expect(sent.status).toBe(202);
    const report = await reportAt(botToken, sent.body.id, ['SENT', 'DELIVERED', 'READ']);
    expect(report).toMatchObject({ channel: 'telegram', category: 'UTILITY' });
    expect(await sentTexts(bot.id)).toContainEqual(['424242', 'Hello Ann']);

    // The params must fit the template; nothing is sent otherwise.
    const none = await call('/v1/messages', {
      token: botToken,
      body: { channel: 'telegram', to: '424242', template: 'welcome' },
    });
    expect([none.status, fields(none)]).toEqual([400, ['params']]);
    const unknown = await call('/v1/messages', {
      token: botToken,
      body: { channel: 'telegram', to: '424242', template: 'nothing_here', params: [] },
    });
    expect([unknown.status, unknown.body.type]).toEqual([422, '/problems/no-template-source']);
  });

  it('a repeat of name and language is the next version: sent from then on, the older one still readable', async () => {
    const body = (text: string) => ({
      name: 'promo',
      language: 'en',
      category: 'MARKETING',
      content: { type: 'text', text },
    });
    const v1 = await call('/v1/templates', { token: botToken, body: body('Sale {{1}}') });
    const v2 = await call('/v1/templates', { token: botToken, body: body('Big sale {{1}} for {{2}}') });
    expect([v1.status, v1.body.version, v2.status, v2.body.version]).toEqual([201, 1, 201, 2]);
    expect(v2.body).toMatchObject({ category: 'MARKETING', params: 2 });

    const latest = await call('/v1/templates/promo', { token: botToken });
    expect(latest.status).toBe(200);
    expect(latest.body.data).toEqual([
      expect.objectContaining({ version: 2, content: body('Big sale {{1}} for {{2}}').content }),
    ]);
    const older = await call('/v1/templates/promo?language=en&version=1', { token: botToken });
    expect(older.body.data).toEqual([
      expect.objectContaining({ version: 1, content: { type: 'text', text: 'Sale {{1}}' } }),
    ]);

    const sent = await call('/v1/messages', {
      token: botToken,
      body: { channel: 'telegram', to: '434343', template: 'promo', params: ['-20%', 'Ann'] },
    });
    expect(sent.status).toBe(202);
    await reportAt(botToken, sent.body.id, ['SENT', 'DELIVERED', 'READ']);
    expect(await sentTexts(bot.id)).toContainEqual(['434343', 'Big sale -20% for Ann']);

    const listed = await call('/v1/templates?limit=1', { token: botToken });
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((t: Json) => t.name)).toEqual(['promo']);
    const next = await call(`/v1/templates?limit=1&cursor=${listed.body.next_cursor}`, { token: botToken });
    expect(next.body.data.map((t: Json) => [t.name, t.version])).toEqual([['welcome', 1]]);
    expect(next.body.next_cursor).toBeNull();

    const deleted = await call('/v1/templates/promo', { token: botToken, method: 'DELETE' });
    expect(deleted.status).toBe(204);
    expect((await call('/v1/templates/promo', { token: botToken })).status).toBe(404);
    expect((await call('/v1/templates/promo', { token: botToken, method: 'DELETE' })).status).toBe(404);
  });

  it('refuses bad bodies with 400 naming the field, storing nothing', async () => {
    const cases: [Json, string][] = [
      [{ language: 'en', content: { type: 'text', text: 'x' } }, 'name'],
      [{ name: 'Bad Name', language: 'en', content: { type: 'text', text: 'x' } }, 'name'],
      [{ name: 'bad_lang', language: 'english', content: { type: 'text', text: 'x' } }, 'language'],
      [
        { name: 'bad_cat', language: 'en', category: 'AUTHENTICATION', content: { type: 'text', text: 'x' } },
        'category',
      ],
      [{ name: 'no_content', language: 'en' }, 'content'],
      [{ name: 'gap', language: 'en', content: { type: 'text', text: 'Hi {{2}}' } }, 'content'],
      [{ name: 'too_long', language: 'en', content: { type: 'text', text: 'x'.repeat(4097) } }, 'content.text'],
    ];
    for (const [body, field] of cases) {
      const res = await call('/v1/templates', { token: botToken, body });
      expect([JSON.stringify(body).slice(0, 60), res.status, fields(res)]).toEqual([
        JSON.stringify(body).slice(0, 60),
        400,
        [field],
      ]);
    }
    const listed = await call('/v1/templates', { token: botToken });
    expect(listed.body.data.map((t: Json) => t.name)).toEqual(['welcome']);
  });

  it("never shows or sends another account's template", async () => {
    expect((await call('/v1/templates/welcome', { token: otherToken })).status).toBe(404);
    expect((await call('/v1/templates', { token: otherToken })).body).toEqual({ data: [], next_cursor: null });
    expect((await call('/v1/templates/welcome', { token: otherToken, method: 'DELETE' })).status).toBe(404);
    const send = await call('/v1/messages', {
      token: otherToken,
      body: { channel: 'telegram', to: '424242', template: 'welcome', params: ['Ann'] },
    });
    expect([send.status, send.body.type]).toEqual([422, '/problems/no-template-source']);
    expect((await call('/v1/templates/welcome', { token: botToken })).status).toBe(200);
  });

  it('one name as a Meta and a bot template: a failover route sends the right one on each channel', async () => {
    const created = await call('/v1/templates', {
      token: waToken,
      body: { name: 'notice', language: 'en', content: { type: 'text', text: 'Bot notice for {{1}}' } },
    });
    expect(created.status).toBe(201);
    const listed = await call('/v1/templates', { token: waToken });
    expect(listed.body.data.map((t: Json) => [t.name, t.source, t.channels])).toEqual([
      ['notice', 'bot', ['telegram', 'max']],
      ['notice', 'whatsapp', ['whatsapp']],
    ]);
    expect(listed.body.data[1]).toMatchObject({ status: 'APPROVED', quality: 'UNKNOWN', params: 1, version: null });
    expect(listed.body.data[0].quality).toBeNull();
    // Meta rates the template YELLOW and the template sync stores it: the listing and the template show it.
    await factory.dataSource.query(`UPDATE templates SET quality = 'YELLOW' WHERE app_id = $1 AND name = 'notice'`, [
      app.id,
    ]);
    const rated = await call('/v1/templates/notice', { token: waToken });
    expect(rated.body.data.map((t: Json) => [t.source, t.quality])).toEqual([
      ['bot', null],
      ['whatsapp', 'YELLOW'],
    ]);

    // The number is not on WhatsApp: the Meta template is tried there, then the bot's on Telegram.
    const contact = await call('/v1/contacts', {
      token: waToken,
      body: { name: 'Ann', identities: { whatsapp: '79990013333', telegram: '515151' } },
    });
    expect(contact.status).toBe(201);
    const sent = await call('/v1/messages', {
      token: waToken,
      body: { contact: contact.body.id, channels: ['whatsapp', 'telegram'], template: 'notice', params: ['Ann'] },
    });
    expect(sent.status).toBe(202);
    const report = await waitFor(
      async () => {
        const r = await call(`/v1/messages/${sent.body.id}`, { token: waToken });
        return r.body?.channel === 'telegram' && ['SENT', 'DELIVERED', 'READ'].includes(r.body.status) ? r.body : false;
      },
      30_000,
      'the message carried by Telegram',
      100,
    );
    expect(report.attempts.map((a: Json) => [a.channel, a.status])).toEqual([
      ['whatsapp', 'FAILED'],
      ['telegram', expect.stringMatching(/SENT|DELIVERED|READ/)],
    ]);
    expect(await sentTexts(waBot.id)).toEqual([['515151', 'Bot notice for Ann']]);

    // On WhatsApp alone, Meta's template is sent.
    const direct = await call('/v1/messages', {
      token: waToken,
      body: { channel: 'whatsapp', to: '79990012222', template: 'notice', params: ['Bo'] },
    });
    expect(direct.status).toBe(202);
    await waitFor(
      async () =>
        ((await sandbox(`whatsapp/messages?phone_number_id=${app.phoneNumberId}`)) as unknown as Json[]).some(
          (m) => m.body.to === '79990012222' && m.body.type === 'template' && m.body.template?.name === 'notice',
        ),
      10_000,
      'the Meta template on WhatsApp',
      100,
    );
  });
});
