import { randomBytes } from 'node:crypto';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { SecretBox } from '@app/auth';
import { MaxConnector, TelegramConnector } from '@app/channels';
import { newMessageId, OutboundMessage, RenderedTemplate } from '@app/contracts';
import { TargetPolicy } from '@app/egress';
import { SandboxConfig } from '../src/config';
import { createSandboxApp } from '../src/sandbox.app';

interface Call {
  method: string;
  params: Record<string, unknown>;
  outcome: string;
}

const rendered: RenderedTemplate = {
  header: 'Order <42>',
  body: 'Hi *Ann & Co*, your parcel is ready',
  footer: 'Reply STOP to opt out',
  buttons: [
    { type: 'URL', text: 'Track', url: 'https://shop.example/t/42' },
    { type: 'QUICK_REPLY', text: 'Stop promotions', payload: 'Stop promotions' },
  ],
};
const expectedText =
  '<b>Order &lt;42&gt;</b>\n\nHi <b>Ann &amp; Co</b>, your parcel is ready\n\n<i>Reply STOP to opt out</i>';

describe('Telegram and MAX connectors against the sandbox', () => {
  let app: NestFastifyApplication;
  let base: string;
  const box = new SecretBox({ k1: randomBytes(32) }, 'k1');
  const open = (s: string) => box.open(s);

  const control = async (path: string, body?: unknown, method = body === undefined ? 'GET' : 'POST') => {
    const res = await fetch(`${base}/_sandbox/${path}`, {
      method,
      ...(body !== undefined ? { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) } : {}),
    });
    return res.status === 204 ? null : ((await res.json()) as unknown);
  };
  const message = (
    channel: 'telegram' | 'max',
    token: string,
    recipient: string,
    media?: OutboundMessage['content'],
  ): OutboundMessage => ({
    id: newMessageId(),
    channel,
    priority: 'service',
    category: 'UTILITY',
    user_id: 'u1',
    app_id: null,
    sender: { connection_id: 'conn-1', credential: box.seal(token) },
    recipient,
    kind: 'TEMPLATE',
    content: media ?? { template: { name: 'order_ready', language: 'en', rendered } },
    queued_at: Date.now(),
  });

  beforeAll(async () => {
    app = await createSandboxApp(Object.assign(new SandboxConfig(), { LOG_LEVEL: 'silent' }));
    await app.listen(0, '127.0.0.1');
    base = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  });
  afterAll(() => app.close());

  describe('Telegram', () => {
    let telegram: TelegramConnector;
    let token: string;
    beforeAll(async () => {
      telegram = new TelegramConnector({ apiUrl: `${base}/telegram`, timeoutMs: 1000, openCredential: open });
      token = ((await control('telegram/bots', {})) as { token: string }).token;
    });
    beforeEach(() => control('telegram/faults', undefined, 'DELETE'));

    it('sends a template as escaped HTML with URL and callback buttons, exactly as the Bot API takes it', async () => {
      const result = await telegram.send(message('telegram', token, '5550001'));
      expect(result).toEqual({ ok: true, provider_message_id: expect.stringMatching(/^5550001:\d+$/) });
      const calls = (await control(`telegram/calls?method=sendMessage`)) as Call[];
      expect(calls.at(-1)!.params).toEqual({
        chat_id: '5550001',
        text: expectedText,
        parse_mode: 'HTML',
        reply_markup: {
          inline_keyboard: [
            [{ text: 'Track', url: 'https://shop.example/t/42' }],
            [{ text: 'Stop promotions', callback_data: 'Stop promotions' }],
          ],
        },
      });
    });

    it('sends a media template as a photo with the text as caption', async () => {
      const msg = message('telegram', token, '5550001', {
        template: {
          name: 'promo',
          language: 'en',
          rendered,
          media: { type: 'IMAGE', url: 'https://cdn.example/p.jpg' },
        },
      });
      expect(await telegram.send(msg)).toMatchObject({ ok: true });
      const calls = (await control(`telegram/calls?method=sendPhoto`)) as Call[];
      expect(calls.at(-1)!.params).toMatchObject({
        photo: 'https://cdn.example/p.jpg',
        caption: expectedText,
        parse_mode: 'HTML',
      });
    });

    it('classifies blocked users and unknown chats as final, 429 as that bot pausing for retry_after, 500 as the channel', async () => {
      expect(await telegram.send(message('telegram', token, '5554444'))).toMatchObject({
        ok: false,
        retryable: false,
        code: 'recipient_blocked',
      });
      expect(await telegram.send(message('telegram', token, '5553333'))).toMatchObject({
        ok: false,
        retryable: false,
        code: 'recipient_not_found',
      });
      await control('telegram/faults', { mode: '429', retry_after_seconds: 9, count: 1 });
      expect(await telegram.send(message('telegram', token, '5550001'))).toMatchObject({
        ok: false,
        retryable: true,
        scope: 'sender',
        retryAfterMs: 9000,
      });
      await control('telegram/faults', { mode: '500', count: 1 });
      expect(await telegram.send(message('telegram', token, '5550001'))).toMatchObject({
        ok: false,
        retryable: true,
        scope: 'channel',
      });
    });

    it('gives up on a hanging API after its timeout with the outcome unknown', async () => {
      await control('telegram/faults', { mode: 'hang', count: 1 });
      expect(await telegram.send(message('telegram', token, '5550001'))).toMatchObject({
        ok: false,
        retryable: true,
        scope: 'channel',
        outcomeUnknown: true,
      });
    });

    it('checks a token with getMe and sets the webhook with its secret', async () => {
      expect(await telegram.getMe(token)).toMatchObject({ ok: true, value: { is_bot: true } });
      expect(await telegram.getMe('123:not-a-bot')).toMatchObject({ ok: false, failure: { status: 401 } });
      expect(await telegram.setWebhook(token, 'http://127.0.0.1:1/v1/inbound/telegram/c1', 'sec_ret-1')).toEqual({
        ok: true,
        value: true,
      });
      const bots = (await control('telegram/bots')) as {
        token: string;
        webhook: { url: string; secret: string } | null;
      }[];
      expect(bots.find((b) => b.token === token)!.webhook).toMatchObject({
        url: 'http://127.0.0.1:1/v1/inbound/telegram/c1',
        secret: 'sec_ret-1',
      });
    });

    it('refuses a message whose token cannot be opened, without calling the channel', async () => {
      const msg = {
        ...message('telegram', token, '5550001'),
        sender: { connection_id: 'c', credential: 'v1.k9.AAAAAAAAAAAAAAAA..AAAAAAAAAAAAAAAAAAAAAA' },
      };
      expect(await telegram.send(msg)).toMatchObject({ ok: false, retryable: false, code: 'invalid_message' });
    });
  });

  describe('MAX', () => {
    let max: MaxConnector;
    let token: string;
    beforeAll(async () => {
      max = new MaxConnector({
        apiUrl: `${base}/max`,
        timeoutMs: 1000,
        openCredential: open,
        mediaTargets: new TargetPolicy({ allowPrivate: true }),
      });
      token = ((await control('max/bots', {})) as { token: string }).token;
    });
    beforeEach(() => control('max/faults', undefined, 'DELETE'));

    it('sends a template as HTML text with an inline_keyboard attachment', async () => {
      const result = await max.send(message('max', token, '5550001'));
      expect(result).toEqual({ ok: true, provider_message_id: expect.stringMatching(/^mid\./) });
      const calls = (await control('max/calls?method=messages')) as Call[];
      expect(calls.at(-1)!.params).toEqual({
        user_id: '5550001',
        text: expectedText,
        format: 'html',
        attachments: [
          {
            type: 'inline_keyboard',
            payload: {
              buttons: [
                [{ type: 'link', text: 'Track', url: 'https://shop.example/t/42' }],
                [{ type: 'callback', text: 'Stop promotions', payload: 'Stop promotions' }],
              ],
            },
          },
        ],
      });
    });

    it('uploads a video template through MAX uploads before sending it', async () => {
      const videoUrl = `${base}/_sandbox/max/bots`; // any URL the sandbox serves stands in for the media
      const msg = message('max', token, '5550001', {
        template: { name: 'promo', language: 'en', rendered, media: { type: 'VIDEO', url: videoUrl } },
      });
      expect(await max.send(msg)).toMatchObject({ ok: true });
      const calls = (await control('max/calls?method=messages')) as Call[];
      const attachments = calls.at(-1)!.params.attachments as { type: string; payload: { token?: string } }[];
      expect(attachments[0]).toMatchObject({ type: 'video', payload: { token: expect.any(String) } });
    });

    it('classifies blocked and unknown chats as final, 429 with Retry-After for that bot, hang as outcome unknown', async () => {
      expect(await max.send(message('max', token, '5554444'))).toMatchObject({
        ok: false,
        retryable: false,
        code: 'recipient_blocked',
      });
      expect(await max.send(message('max', token, '5553333'))).toMatchObject({
        ok: false,
        retryable: false,
        code: 'recipient_not_found',
      });
      await control('max/faults', { mode: '429', retry_after_seconds: 4, count: 1 });
      expect(await max.send(message('max', token, '5550001'))).toMatchObject({
        ok: false,
        retryable: true,
        scope: 'sender',
        retryAfterMs: 4000,
      });
      await control('max/faults', { mode: 'hang', count: 1 });
      expect(await max.send(message('max', token, '5550001'))).toMatchObject({
        ok: false,
        retryable: true,
        scope: 'channel',
        outcomeUnknown: true,
      });
    });

    it('checks a token with GET /me and subscribes the webhook with its secret', async () => {
      expect(await max.getMe(token)).toMatchObject({ ok: true, value: { is_bot: true } });
      expect(await max.getMe('nope-nope-nope')).toMatchObject({ ok: false, failure: { status: 401 } });
      expect(await max.subscribe(token, 'http://127.0.0.1:1/v1/inbound/max/c1', 'max_secret-1')).toMatchObject({
        ok: true,
      });
      expect(await max.unsubscribe(token, 'http://127.0.0.1:1/v1/inbound/max/c1')).toMatchObject({ ok: true });
    });
  });
});
