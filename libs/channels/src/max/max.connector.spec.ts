import { MaxError } from '@maxhub/max-bot-api';
import { OutboundMessage } from '@app/contracts';
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

describe('MAX connector', () => {
  it('asks again later, for this message only, while MAX still processes an uploaded file', () => {
    const failure = maxFailure('messages', new MaxError(400, { code: 'attachment.not.ready', message: 'not ready' }));
    expect(failure).toMatchObject({ status: 400, notReady: true });
    expect(maxFailure('messages', new MaxError(400, { code: 'text.too.long', message: 'long' })).notReady).toBe(false);
  });

  it('refuses a recipient id larger than a JavaScript number carries, instead of sending to someone else', () => {
    expect(toMaxRequest(message({ recipient: '9007199254740993' }))).toEqual({
      error: expect.stringMatching(/at most/),
    });
    expect(toMaxRequest(message({ recipient: '-9007199254740991' }))).not.toHaveProperty('error');
  });

  it("fails the message, not the channel, when the business's media URL cannot be fetched", async () => {
    const calls: string[] = [];
    const fetchFn = (async (input: string | URL | Request) => {
      const url = String(input instanceof Request ? input.url : input);
      calls.push(url);
      if (url.startsWith('https://media.example.com/')) throw new TypeError('fetch failed');
      if (url.includes('/uploads')) return json(200, { url: 'https://upload.example.com/slot', token: 'tok' });
      return json(200, { message: { body: { mid: 'mid.1' } } });
    }) as typeof fetch;
    const connector = new MaxConnector({
      apiUrl: 'http://max.test',
      openCredential: () => 'bot-token',
      fetch: fetchFn,
    });
    const result = await connector.send(message());
    expect(result).toMatchObject({ ok: false, retryable: false, scope: 'message', code: 'rejected' });
    expect(result.ok === false && result.title).toMatch(/media URL could not be reached/);
    expect(calls.some((u) => u.includes('/messages'))).toBe(false);
  });
});
