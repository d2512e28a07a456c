import { DataSource } from 'typeorm';
import { createDataSource } from '@app/database';
import { MessageReceivedData } from '@app/contracts';
import { NatsClients } from '@app/messaging';
import { waitFor } from '@app/testing';
import { ApiFactory } from '../../../test/support/factories';
import { Platform, startPlatform } from '../../../test/support/platform';
import { sandboxControl } from '../../../test/support/sandbox';
import { AccountsRepository } from '../src/accounts/accounts.repository';
import { gatewaySchema } from '../src/database/schema';
import { eventsOf } from './support/whatsapp';

type Json = Record<string, unknown>;

describe('gateway accounts, connections and bot updates', () => {
  let platform: Platform;
  let api: ApiFactory;
  let gatewayDb: DataSource;
  let accounts: AccountsRepository;
  let clients: NatsClients;

  const call = async (
    path: string,
    init: { method?: string; token?: string; body?: unknown; headers?: Record<string, string> } = {},
  ) => {
    const res = await fetch(`${platform.urls.gateway}${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: {
        ...(init.token ? { Authorization: `Bearer ${init.token}` } : {}),
        ...(init.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
        ...init.headers,
      },
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : null) as Json & Json[] };
  };
  const sandbox = async (path: string, body?: unknown) =>
    (await sandboxControl<Json & Json[]>(platform.urls.sandbox, path, body)).body;
  const newAccount = async (userId: string | null) =>
    (await accounts.createAccount(`acct-${Math.random()}`, userId)).token;
  const bot = async (channel: 'telegram' | 'max') =>
    (await sandbox(`${channel}/bots`, {})) as unknown as { id: number; token: string };

  beforeAll(async () => {
    platform = await startPlatform({ suite: 'gw-connections', services: ['sandbox', 'api', 'gateway'] });
    api = await ApiFactory.connect(platform.infra.databaseUrl);
    gatewayDb = createDataSource(platform.infra.databaseUrl, gatewaySchema, 2);
    await gatewayDb.initialize();
    accounts = new AccountsRepository(gatewayDb);
    clients = await NatsClients.connect({ url: platform.infra.natsUrl, name: 'gw-connections-test' });
  });
  afterAll(async () => {
    await clients?.drain();
    await gatewayDb?.destroy();
    await api?.close();
    await platform?.stop();
  });

  describe('account tokens', () => {
    it('answers 401 with WWW-Authenticate and a problem body without a valid token, and for a revoked one', async () => {
      for (const token of [undefined, 'gk_not-a-real-token-at-all-000000']) {
        const res = await call('/v1/connections', { token });
        expect(res.status).toBe(401);
        expect(res.headers.get('www-authenticate')).toBe('Bearer');
        expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      }
      const { account } = await accounts.createAccount('revoked', null);
      const extra = (await accounts.createToken(account.id))!;
      expect((await call('/v1/connections', { token: extra.token })).status).toBe(200);
      await accounts.revokeToken(extra.tokenId);
      expect((await call('/v1/connections', { token: extra.token })).status).toBe(401);
    });
  });

  describe('bot connections', () => {
    it('connects a Telegram bot: the token is checked, the webhook registered with a secret, the token never returned or stored in clear', async () => {
      const token = await newAccount(null);
      const b = await bot('telegram');
      const res = await call('/v1/connections', { token, body: { channel: 'telegram', bot_token: b.token } });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ channel: 'telegram', state: 'active', bot: { id: String(b.id) } });
      expect(JSON.stringify(res.body)).not.toContain(b.token);
      const bots = (await sandbox('telegram/bots')) as unknown as {
        token: string;
        webhook: { url: string; secret: string } | null;
      }[];
      const hook = bots.find((x) => x.token === b.token)!.webhook!;
      expect(hook.url).toBe(`${platform.urls.gateway}/v1/inbound/telegram/${res.body.id}`);
      expect(hook.secret.length).toBeGreaterThanOrEqual(32);
      const [row] = (await gatewayDb.query(
        `SELECT credential, inbound_secret_hash FROM gateway.connections WHERE id = $1`,
        [res.body.id],
      )) as { credential: string; inbound_secret_hash: string }[];
      expect(row.credential).toMatch(/^v1\./);
      expect(row.credential).not.toContain(b.token);
      expect(row.inbound_secret_hash).not.toBe(hook.secret);
      expect((await call(`/v1/connections/${res.body.id}`, { token })).body).toMatchObject({
        id: res.body.id,
        state: 'active',
      });
    });

    it("answers 422 with the channel's words for a token the channel refuses, and stores nothing", async () => {
      const token = await newAccount(null);
      const res = await call('/v1/connections', {
        token,
        body: { channel: 'telegram', bot_token: '123456:refused-token' },
      });
      expect(res.status).toBe(422);
      expect(res.body.detail).toContain('Unauthorized');
      const maxRes = await call('/v1/connections', { token, body: { channel: 'max', bot_token: 'refused-max-token' } });
      expect(maxRes.status).toBe(422);
      expect((await call('/v1/connections', { token })).body).toEqual([]);
    });

    it('answers 400 with field errors for a bad body and 409 for a second live connection of a channel', async () => {
      const token = await newAccount(null);
      const bad = await call('/v1/connections', { token, body: { channel: 'pigeon' } });
      expect(bad.status).toBe(400);
      expect((bad.body.errors as { field: string }[]).map((e) => e.field)).toContain('channel');
      const missing = await call('/v1/connections', { token, body: { channel: 'max' } });
      expect(missing.status).toBe(400);
      expect((missing.body.errors as { field: string }[]).map((e) => e.field)).toContain('bot_token');
      const first = await call('/v1/connections', {
        token,
        body: { channel: 'max', bot_token: (await bot('max')).token },
      });
      expect(first.status).toBe(201);
      const second = await call('/v1/connections', {
        token,
        body: { channel: 'max', bot_token: (await bot('max')).token },
      });
      expect(second.status).toBe(409);
    });

    it('refuses a bot that is already connected without touching its live webhook', async () => {
      const tg = await bot('telegram');
      const first = await call('/v1/connections', {
        token: await newAccount(null),
        body: { channel: 'telegram', bot_token: tg.token },
      });
      expect(first.status).toBe(201);
      const again = await call('/v1/connections', {
        token: await newAccount(null),
        body: { channel: 'telegram', bot_token: tg.token },
      });
      expect(again.status).toBe(409);
      const bots = (await sandbox('telegram/bots')) as unknown as { id: number; webhook: { url: string } | null }[];
      expect(bots.find((b) => b.id === tg.id)?.webhook?.url).toBe(first.body.inbound_url);
    });

    it("gives 404 for an unknown connection and 403 for another account's", async () => {
      const mine = await newAccount(null);
      const theirs = await newAccount(null);
      const c = await call('/v1/connections', {
        token: theirs,
        body: { channel: 'max', bot_token: (await bot('max')).token },
      });
      expect((await call(`/v1/connections/${c.body.id}`, { token: mine })).status).toBe(403);
      expect((await call(`/v1/connections/${c.body.id}`, { token: mine, method: 'DELETE' })).status).toBe(403);
      expect((await call('/v1/connections/0190a5a0-0000-7000-8000-000000000000', { token: mine })).status).toBe(404);
      expect((await call('/v1/connections/not-an-id', { token: mine })).status).toBe(404);
    });

    it('turns bot updates into message.received for the owner: wrong secret 401 and nothing published, a repeat stored once', async () => {
      const { userId } = await api.user('system');
      const token = await newAccount(userId);
      const tg = await bot('telegram');
      const mx = await bot('max');
      const tgConn = await call('/v1/connections', { token, body: { channel: 'telegram', bot_token: tg.token } });
      const mxConn = await call('/v1/connections', { token, body: { channel: 'max', bot_token: mx.token } });

      const forged = await call(`/v1/inbound/telegram/${tgConn.body.id}`, {
        body: { update_id: 1, message: { message_id: 1, date: 1, chat: { id: 1, type: 'private' }, text: 'forged' } },
        headers: { 'X-Telegram-Bot-Api-Secret-Token': 'not-the-secret' },
      });
      expect(forged.status).toBe(401);
      expect(
        (await call(`/v1/inbound/max/${mxConn.body.id}`, { body: { update_type: 'message_created' } })).status,
      ).toBe(401);

      const text = await sandbox('telegram/inbound', { bot: tg.token, from: '5550001', text: 'hello from telegram' });
      expect(text.webhook).toEqual({ delivered: true, status: 200 });
      const press = await sandbox('telegram/inbound', {
        bot: tg.token,
        from: '5550001',
        callback_data: 'Stop promotions',
      });
      await sandbox('telegram/inbound', { bot: tg.token, from: '5550001', repeat_update_id: press.update_id });
      await sandbox('max/inbound', { bot: mx.token, from: '5550002', text: 'hello from max' });
      await sandbox('max/inbound', { bot: mx.token, from: '5550002', callback_data: 'stop' });

      const received = await eventsOf<MessageReceivedData>(clients, platform.infra.topology, 'message.received');
      const mine = received.filter(
        (e) => e.data.connection_id === tgConn.body.id || e.data.connection_id === mxConn.body.id,
      );
      expect(mine.map((e) => [e.channel, e.data.type, e.data.text])).toEqual([
        ['telegram', 'text', 'hello from telegram'],
        ['telegram', 'reply', 'Stop promotions'],
        ['max', 'text', 'hello from max'],
        ['max', 'reply', 'stop'],
      ]);
      expect(mine.every((e) => e.user_id === userId)).toBe(true);
      expect(received.some((e) => e.data.text === 'forged')).toBe(false);
      // Telegram's loading indicator on the pressed button ends: the gateway answers the press.
      const answered = await waitFor(
        async () => {
          const calls = await sandbox(`telegram/calls?method=answerCallbackQuery&bot_id=${tg.id}`);
          return calls.length > 0 && calls;
        },
        5000,
        'the press answered',
      );
      const pressIds = answered.map((c) => (c as { params: { callback_query_id: unknown } }).params.callback_query_id);
      expect(new Set(pressIds).size).toBe(1);
      expect(pressIds[0]).toEqual(expect.any(String));
    });

    it('disconnects: the webhook is removed, the token forgotten, and updates are refused after', async () => {
      const token = await newAccount(null);
      const tg = await bot('telegram');
      const c = await call('/v1/connections', { token, body: { channel: 'telegram', bot_token: tg.token } });
      const hookSecret = (
        (await sandbox('telegram/bots')) as unknown as { token: string; webhook: { secret: string } }[]
      ).find((x) => x.token === tg.token)!.webhook.secret;
      expect((await call(`/v1/connections/${c.body.id}`, { token, method: 'DELETE' })).status).toBe(204);
      expect(
        ((await sandbox('telegram/bots')) as unknown as { token: string; webhook: unknown }[]).find(
          (x) => x.token === tg.token,
        )!.webhook,
      ).toBeNull();
      const [row] = (await gatewayDb.query(`SELECT state, credential FROM gateway.connections WHERE id = $1`, [
        c.body.id,
      ])) as { state: string; credential: string | null }[];
      expect(row).toEqual({ state: 'disconnected', credential: null });
      const late = await call(`/v1/inbound/telegram/${c.body.id}`, {
        body: { update_id: 5, message: { message_id: 1, date: 1, chat: { id: 1, type: 'private' }, text: 'late' } },
        headers: { 'X-Telegram-Bot-Api-Secret-Token': hookSecret },
      });
      expect(late.status).toBe(401);
      // A new bot connection of the channel is possible again.
      expect(
        (await call('/v1/connections', { token, body: { channel: 'telegram', bot_token: tg.token } })).status,
      ).toBe(201);
    });
  });

  describe('WhatsApp connections', () => {
    it("links one of the user's ACTIVE apps; another user's app is 403, an inactive one 422", async () => {
      const owner = await api.user('system');
      const other = await api.user('system');
      const token = await newAccount(owner.userId);
      const active = await api.activeApp(owner.userId);
      const inactive = await api.app(owner.userId);
      const foreign = await api.activeApp(other.userId);
      expect((await call('/v1/connections', { token, body: { channel: 'whatsapp', app_id: foreign.id } })).status).toBe(
        403,
      );
      const notActive = await call('/v1/connections', { token, body: { channel: 'whatsapp', app_id: inactive.id } });
      expect(notActive.status).toBe(422);
      expect((await call('/v1/connections', { token, body: { channel: 'whatsapp', app_id: 999999 } })).status).toBe(
        404,
      );
      const linked = await call('/v1/connections', { token, body: { channel: 'whatsapp', app_id: active.id } });
      expect(linked.status).toBe(201);
      expect(linked.body).toMatchObject({ channel: 'whatsapp', app_id: active.id, state: 'active' });
    });
  });
});
