import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { SandboxConfig } from '../src/config';
import { createSandboxApp } from '../src/sandbox.app';

interface Received {
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

/** A webhook receiver standing in for the gateway's inbound endpoints. */
async function receiver(): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      received.push({ headers: req.headers, body: JSON.parse(raw) as Record<string, unknown> });
      res.writeHead(200).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received, server };
}

describe('Telegram and MAX Bot API emulators', () => {
  let app: NestFastifyApplication;
  let base: string;
  let hook: Awaited<ReturnType<typeof receiver>>;

  const call = async (
    path: string,
    init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
  ) => {
    const res = await fetch(`${base}${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: { ...(init.body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...init.headers },
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : null) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
  const register = async (channel: 'telegram' | 'max') =>
    (await call(`/_sandbox/${channel}/bots`, { body: {} })).body as { id: number; token: string };

  beforeAll(async () => {
    const config = Object.assign(new SandboxConfig(), { LOG_LEVEL: 'silent' });
    app = await createSandboxApp(config);
    await app.listen(0, '127.0.0.1');
    base = await app.getUrl();
    base = base.replace('[::1]', '127.0.0.1');
    hook = await receiver();
  });
  afterAll(async () => {
    await app.close();
    hook.server.close();
  });

  describe('Telegram', () => {
    it('answers getMe for a registered token and 401 in Telegram shape otherwise', async () => {
      const bot = await register('telegram');
      const me = await call(`/telegram/bot${bot.token}/getMe`);
      expect(me.status).toBe(200);
      expect(me.body).toEqual({ ok: true, result: expect.objectContaining({ id: bot.id, is_bot: true }) });
      const bad = await call(`/telegram/bot123:nope/getMe`);
      expect(bad.status).toBe(401);
      expect(bad.body).toEqual({ ok: false, error_code: 401, description: 'Unauthorized' });
    });

    it('records a sendMessage with HTML text and an inline keyboard, and refuses broken HTML', async () => {
      const bot = await register('telegram');
      const ok = await call(`/telegram/bot${bot.token}/sendMessage`, {
        body: {
          chat_id: 5550001,
          text: 'Order <b>42</b> &lt;ready&gt;',
          parse_mode: 'HTML',
          reply_markup: {
            inline_keyboard: [
              [{ text: 'Track', url: 'https://example.com/t' }],
              [{ text: 'Stop', callback_data: 'stop' }],
            ],
          },
        },
      });
      expect(ok.status).toBe(200);
      expect(ok.body.result).toEqual(
        expect.objectContaining({ message_id: expect.any(Number), text: 'Order <b>42</b> &lt;ready&gt;' }),
      );
      const broken = await call(`/telegram/bot${bot.token}/sendMessage`, {
        body: { chat_id: 5550001, text: 'a < b', parse_mode: 'HTML' },
      });
      expect(broken.status).toBe(400);
      expect(broken.body.description).toMatch(/^Bad Request: can't parse entities/);
      const calls = (await call(`/_sandbox/telegram/calls?bot_id=${bot.id}`)).body as unknown as {
        method: string;
        params: { text: string };
      }[];
      expect(calls).toHaveLength(1);
      expect(calls[0].params.text).toBe('Order <b>42</b> &lt;ready&gt;');
    });

    it('answers chat not found, blocked, and the 429 fault with retry_after for that bot only', async () => {
      const bot = await register('telegram');
      const other = await register('telegram');
      expect(
        (await call(`/telegram/bot${bot.token}/sendMessage`, { body: { chat_id: 5553333, text: 'x' } })).body,
      ).toEqual({
        ok: false,
        error_code: 400,
        description: 'Bad Request: chat not found',
      });
      expect(
        (await call(`/telegram/bot${bot.token}/sendMessage`, { body: { chat_id: 5554444, text: 'x' } })).status,
      ).toBe(403);
      await call('/_sandbox/telegram/faults', {
        body: { mode: '429', retry_after_seconds: 7, bot: String(bot.id), count: 1 },
      });
      const limited = await call(`/telegram/bot${bot.token}/sendMessage`, { body: { chat_id: 5550001, text: 'x' } });
      expect(limited.status).toBe(429);
      expect(limited.body.parameters).toEqual({ retry_after: 7 });
      expect(
        (await call(`/telegram/bot${other.token}/sendMessage`, { body: { chat_id: 5550001, text: 'x' } })).status,
      ).toBe(200);
      expect(
        (await call(`/telegram/bot${bot.token}/sendMessage`, { body: { chat_id: 5550001, text: 'x' } })).status,
      ).toBe(200);
    });

    it('posts inbound messages and button presses to the webhook with the secret token, and repeats an update on request', async () => {
      const bot = await register('telegram');
      await call(`/telegram/bot${bot.token}/setWebhook`, { body: { url: hook.url, secret_token: 'tg-secret_1' } });
      hook.received.length = 0;
      const text = await call('/_sandbox/telegram/inbound', {
        body: { bot: bot.token, from: '5550001', text: 'hello' },
      });
      expect(text.body.webhook).toEqual({ delivered: true, status: 200 });
      const press = await call('/_sandbox/telegram/inbound', {
        body: { bot: String(bot.id), from: '5550001', callback_data: 'stop' },
      });
      await call('/_sandbox/telegram/inbound', {
        body: { bot: bot.token, from: '5550001', repeat_update_id: press.body.update_id },
      });
      expect(hook.received.map((r) => r.headers['x-telegram-bot-api-secret-token'])).toEqual([
        'tg-secret_1',
        'tg-secret_1',
        'tg-secret_1',
      ]);
      expect(hook.received[0].body).toEqual(
        expect.objectContaining({
          update_id: text.body.update_id,
          message: expect.objectContaining({ text: 'hello' }),
        }),
      );
      expect(hook.received[1].body).toEqual(
        expect.objectContaining({ callback_query: expect.objectContaining({ data: 'stop' }) }),
      );
      expect(hook.received[2].body).toEqual(hook.received[1].body);
    });
  });

  describe('MAX', () => {
    it('authenticates with the Authorization header and answers errors as {code, message}', async () => {
      const bot = await register('max');
      const me = await call('/max/me', { headers: { Authorization: bot.token } });
      expect(me.body).toEqual(expect.objectContaining({ user_id: bot.id, is_bot: true }));
      const bad = await call('/max/me', { headers: { Authorization: 'nope' } });
      expect(bad.status).toBe(401);
      expect(bad.body).toEqual({ code: 'verify.token', message: 'Invalid access_token' });
    });

    it('records a message with an inline keyboard and refuses an unknown chat', async () => {
      const bot = await register('max');
      const keyboard = {
        type: 'inline_keyboard',
        payload: {
          buttons: [
            [
              { type: 'link', text: 'Open', url: 'https://example.com' },
              { type: 'callback', text: 'Stop', payload: 'stop' },
            ],
          ],
        },
      };
      const sent = await call('/max/messages?user_id=5550001', {
        headers: { Authorization: bot.token },
        body: { text: 'Order <b>42</b>', format: 'html', attachments: [keyboard] },
      });
      expect(sent.status).toBe(200);
      expect(sent.body.message.body).toEqual(
        expect.objectContaining({ mid: expect.stringMatching(/^mid\./), text: 'Order <b>42</b>' }),
      );
      const missing = await call('/max/messages?user_id=5553333', {
        headers: { Authorization: bot.token },
        body: { text: 'x' },
      });
      expect(missing.status).toBe(404);
      expect(missing.body.code).toBe('chat.not.found');
      const calls = (await call(`/_sandbox/max/calls?bot_id=${bot.id}`)).body as unknown as {
        params: { attachments: unknown[] };
      }[];
      expect(calls).toHaveLength(1);
      expect(calls[0].params.attachments).toEqual([keyboard]);
    });

    it('needs an uploaded token for a video, as MAX does', async () => {
      const bot = await register('max');
      const auth = { Authorization: bot.token };
      const early = await call('/max/messages?user_id=5550001', {
        headers: auth,
        body: { attachments: [{ type: 'video', payload: { token: 'x' } }] },
      });
      expect(early.body.code).toBe('attachment.not.ready');
      const slot = await call('/max/uploads?type=video', { method: 'POST', headers: auth });
      expect(slot.body).toEqual({ url: expect.stringContaining('/max/_upload/'), token: expect.any(String) });
      const up = await fetch(slot.body.url as string, {
        method: 'POST',
        headers: { 'Content-Type': 'application/octet-stream' },
        body: Buffer.from('video'),
      });
      expect(up.status).toBe(200);
      const sent = await call('/max/messages?user_id=5550001', {
        headers: auth,
        body: { attachments: [{ type: 'video', payload: { token: slot.body.token } }] },
      });
      expect(sent.status).toBe(200);
    });

    it('subscribes a webhook with a secret and posts message_created and message_callback with X-Max-Bot-Api-Secret', async () => {
      const bot = await register('max');
      const auth = { Authorization: bot.token };
      expect(
        (
          await call('/max/subscriptions', {
            headers: auth,
            body: { url: hook.url, secret: 'max-secret-1', update_types: ['message_created', 'message_callback'] },
          })
        ).body,
      ).toEqual({ success: true });
      hook.received.length = 0;
      await call('/_sandbox/max/inbound', { body: { bot: bot.token, from: '5550001', text: 'hi' } });
      await call('/_sandbox/max/inbound', { body: { bot: bot.token, from: '5550001', callback_data: 'stop' } });
      expect(hook.received.map((r) => r.headers['x-max-bot-api-secret'])).toEqual(['max-secret-1', 'max-secret-1']);
      expect(hook.received.map((r) => r.body.update_type)).toEqual(['message_created', 'message_callback']);
      await call(`/max/subscriptions?url=${encodeURIComponent(hook.url)}`, { method: 'DELETE', headers: auth });
      expect((await call('/max/subscriptions', { headers: auth })).body).toEqual({ subscriptions: [] });
    });

    it("names the dialog's own chat in an update, and records the bot's actions there", async () => {
      const bot = await register('max');
      const auth = { Authorization: bot.token };
      await call('/max/subscriptions', { headers: auth, body: { url: hook.url, secret: 'max-secret-2' } });
      hook.received.length = 0;
      await call('/_sandbox/max/inbound', { body: { bot: bot.token, from: '5550001', text: 'hi' } });
      const dialog = bot.id + 5550001;
      const update = hook.received[0].body as { message: { recipient: Record<string, unknown> } };
      expect(update.message.recipient).toMatchObject({ chat_id: dialog, chat_type: 'dialog' });
      for (const action of ['mark_seen', 'typing_on']) {
        expect((await call(`/max/chats/${dialog}/actions`, { headers: auth, body: { action } })).body).toEqual({
          success: true,
        });
      }
      const bad = await call(`/max/chats/${dialog}/actions`, { headers: auth, body: { action: 'dancing' } });
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe('proto.payload');
      const calls = (await call(`/_sandbox/max/calls?bot_id=${bot.id}&method=actions`)).body as unknown as {
        params: { chat_id: string; action: string };
      }[];
      expect(calls.map((c) => [c.params.chat_id, c.params.action])).toEqual([
        [String(dialog), 'mark_seen'],
        [String(dialog), 'typing_on'],
      ]);
    });

    it('answers 429 with Retry-After under the fault switch', async () => {
      const bot = await register('max');
      await call('/_sandbox/max/faults', { body: { mode: '429', retry_after_seconds: 3, count: 1 } });
      const limited = await call('/max/messages?user_id=5550001', {
        headers: { Authorization: bot.token },
        body: { text: 'x' },
      });
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toBe('3');
      expect(limited.body.code).toBe('too.many.requests');
    });
  });
});
