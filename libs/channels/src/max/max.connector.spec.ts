import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MaxError } from '@maxhub/max-bot-api';
import { OutboundMessage } from '@app/contracts';
import { TargetPolicy } from '@app/egress';
import { startFloodServer } from '@app/testing';
import { MaxConnector, maxFailure, toMaxRequest } from './max.connector';

function message(over: Partial<OutboundMessage> = {}): OutboundMessage {
  return {
    id: '0190a5c0-0000-7000-8000-000000000001',
    channel: 'max',
    priority: 'service',
    category: null,
    user_id: 'u1',
    app_id: null,
    sender: { connection_id: 'c1', credential: 'sealed' },
    recipient: '515151',
    kind: 'VIDEO',
    content: { video: { url: 'https://media.example.com/lesson.mp4', caption: 'Lesson 1' } },
    queued_at: 0,
    ...over,
  };
}

const json = (status: number, body: unknown): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

/** A fake MAX API (upload slots, uploads, messages) that records what it was asked. */
function fakeMax(calls: string[]): typeof fetch {
  return (async (input: string | URL | Request) => {
    const url = String(input instanceof Request ? input.url : input);
    calls.push(url);
    if (url.includes('/uploads')) return json(200, { url: 'https://upload.example.com/slot', token: 'tok' });
    if (url.startsWith('https://upload.example.com/')) return json(200, { token: 'tok' });
    return json(200, { message: { body: { mid: 'mid.1' } } });
  }) as typeof fetch;
}

const strict = (resolved: string) =>
  new TargetPolicy({ allowPrivate: false }, async () => [{ address: resolved, family: 4 }]);

describe('MAX connector', () => {
  it('asks again later, for this message only, while MAX still processes an uploaded file', () => {
    const failure = maxFailure('messages', new MaxError(400, { code: 'attachment.not.ready', message: 'not ready' }));
    expect(failure).toMatchObject({ status: 400, notReady: true });
    expect(maxFailure('messages', new MaxError(400, { code: 'text.too.long', message: 'long' })).notReady).toBe(false);
  });

  it('uploads audio as MAX requires, with the caption as the message text', () => {
    const audio = message({ kind: 'AUDIO', content: { audio: { url: 'https://a.example/a.mp3', caption: 'Listen' } } });
    expect(toMaxRequest(audio)).toEqual({
      text: 'Listen',
      media: { type: 'audio', url: 'https://a.example/a.mp3' },
      keyboard: [],
    });
  });

  it('refuses a recipient id larger than a JavaScript number carries, instead of sending to someone else', () => {
    expect(toMaxRequest(message({ recipient: '9007199254740993' }))).toEqual({
      error: expect.stringMatching(/at most/),
    });
    expect(toMaxRequest(message({ recipient: '-9007199254740991' }))).not.toHaveProperty('error');
  });

  it("fails the message, not the channel, when the business's media URL cannot be fetched", async () => {
    const calls: string[] = [];
    const connector = new MaxConnector({
      apiUrl: 'http://max.test',
      openCredential: () => 'bot-token',
      fetch: fakeMax(calls),
      mediaTargets: new TargetPolicy({ allowPrivate: false }, async () => {
        throw new Error('ENOTFOUND');
      }),
    });
    const result = await connector.send(message());
    expect(result).toMatchObject({ ok: false, retryable: false, scope: 'message', code: 'rejected' });
    expect(result.ok === false && result.title).toMatch(/media URL was refused .*does not resolve/);
    expect(calls.some((u) => u.includes('/messages'))).toBe(false);
  });

  describe('media from a real listener', () => {
    let server: Server;
    let base: string;
    const asked: string[] = [];
    beforeAll(async () => {
      server = createServer((req, res) => {
        asked.push(req.url ?? '');
        res.end('process_resident_memory_bytes 1');
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      base = `127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise((r) => server.close(r)));

    it('never fetches an internal address for a tenant, however the URL names it', async () => {
      const calls: string[] = [];
      const connector = new MaxConnector({
        apiUrl: 'http://max.test',
        openCredential: () => 'bot-token',
        fetch: fakeMax(calls),
        mediaTargets: strict('127.0.0.1'),
      });
      for (const url of [
        `https://${base}/metrics`,
        `https://[::ffff:127.0.0.1]:${base.split(':')[1]}/metrics`,
        `https://media.test:${base.split(':')[1]}/metrics`,
        `http://${base}/metrics`,
      ]) {
        const result = await connector.send(message({ content: { video: { url } } }));
        expect([url, result]).toMatchObject([url, { ok: false, retryable: false, scope: 'message' }]);
        expect(result.ok === false && result.title).toMatch(/media URL was refused by the target policy/);
      }
      expect(asked).toEqual([]);
      expect(calls.some((u) => u.startsWith('https://upload.example.com/') || u.includes('/messages'))).toBe(false);
    });
  });

  it('stops downloading media at 50 MiB while it streams, and fails the message', async () => {
    const flood = await startFloodServer(400 * 1024 * 1024);
    try {
      const calls: string[] = [];
      const connector = new MaxConnector({
        apiUrl: 'http://max.test',
        timeoutMs: 30_000,
        openCredential: () => 'bot-token',
        fetch: fakeMax(calls),
        mediaTargets: new TargetPolicy({ allowPrivate: true }),
      });
      const before = process.memoryUsage().rss;
      const result = await connector.send(message({ content: { video: { url: `${flood.url}/lesson.mp4` } } }));
      expect(result).toMatchObject({ ok: false, retryable: false, scope: 'message' });
      expect(result.ok === false && result.title).toMatch(/larger than 50 MiB/);
      await flood.ended();
      expect(flood.sent()).toBeLessThan(66 * 1024 * 1024);
      expect(process.memoryUsage().rss - before).toBeLessThan(150 * 1024 * 1024);
      expect(calls.some((u) => u.startsWith('https://upload.example.com/'))).toBe(false);
    } finally {
      await flood.close();
    }
  });

  it('posts a bot action to the chat: typing, and the dialog marked seen', async () => {
    const asked: { url: string; body: unknown }[] = [];
    const connector = new MaxConnector({
      apiUrl: 'http://max.test',
      openCredential: (t) => t,
      fetch: (async (input: string | URL | Request, init?: RequestInit) => {
        const request = input instanceof Request ? input : new Request(String(input), init);
        asked.push({ url: `${request.method} ${request.url}`, body: await request.json() });
        return json(200, { success: true });
      }) as typeof fetch,
      mediaTargets: new TargetPolicy({ allowPrivate: true }),
    });
    expect(await connector.sendAction('tok', '7000007103', 'mark_seen')).toMatchObject({ ok: true });
    expect(await connector.sendAction('tok', '7000007103', 'typing_on')).toMatchObject({ ok: true });
    expect(asked.map((a) => [a.url.replace(/\?.*$/, ''), a.body])).toEqual([
      ['POST http://max.test/chats/7000007103/actions', { action: 'mark_seen' }],
      ['POST http://max.test/chats/7000007103/actions', { action: 'typing_on' }],
    ]);
  });

  it('a network failure of MAX keeps the bot token out of the failure text', async () => {
    const connector = new MaxConnector({
      apiUrl: 'http://max.test',
      openCredential: () => 'max-bot-token-0123456789',
      fetch: (async () => {
        throw new TypeError('request with Authorization: max-bot-token-0123456789 failed');
      }) as typeof fetch,
      mediaTargets: new TargetPolicy({ allowPrivate: true }),
    });
    const result = await connector.send(message({ kind: 'TEXT', content: { text: { body: 'hi' } } }));
    expect(result).toMatchObject({ ok: false, scope: 'channel' });
    expect(JSON.stringify(result)).not.toContain('max-bot-token-0123456789');
  });
});
