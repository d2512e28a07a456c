import { createGatewayClient, MessagingError } from './client';
import { retryAfterMs, retryingFetch } from './retry';

/** A fetch answering from a script, recording every request it was sent (with its body read). */
function scripted(...answers: Array<() => Response>) {
  const sent: { method: string; url: string; headers: Headers; body: string }[] = [];
  const fetch = async (request: Request): Promise<Response> => {
    sent.push({ method: request.method, url: request.url, headers: request.headers, body: await request.text() });
    const next = answers.shift();
    if (!next) throw new Error('no more answers scripted');
    return next();
  };
  return { sent, fetch };
}

const problem =
  (status: number, headers: Record<string, string> = {}) =>
  () =>
    new Response(JSON.stringify({ type: '/problems/x', title: 'Refused', status }), {
      status,
      headers: { 'content-type': 'application/problem+json', ...headers },
    });
const accepted =
  (id = 'm-1') =>
  () =>
    new Response(JSON.stringify({ id, status: 'QUEUED' }), {
      status: 202,
      headers: { 'content-type': 'application/json' },
    });

const send = { channel: 'telegram' as const, to: '424242', template: 'order_update', params: ['Anna'] };

describe('retries on 429 and 503', () => {
  const waits: number[] = [];
  const sleep = async (ms: number) => void waits.push(ms);
  beforeEach(() => (waits.length = 0));

  it('waits what Retry-After says, then sends the same request again', async () => {
    const { sent, fetch } = scripted(
      problem(429, { 'retry-after': '2' }),
      problem(503, { 'retry-after': '1' }),
      accepted(),
    );
    const retrying = retryingFetch({}, { fetch, sleep });
    const res = await retrying(
      new Request('http://gw/v1/messages', { method: 'POST', body: '{"a":1}', headers: { 'idempotency-key': 'k' } }),
    );
    expect(res.status).toBe(202);
    expect(waits).toEqual([2000, 1000]);
    expect(sent.map((s) => s.body)).toEqual(['{"a":1}', '{"a":1}', '{"a":1}']);
  });

  it('stops after `attempts` tries and returns the last answer', async () => {
    const { sent, fetch } = scripted(problem(429), problem(429), problem(429));
    const res = await retryingFetch(
      { attempts: 3, baseDelayMs: 100 },
      { fetch, sleep },
    )(new Request('http://gw/v1/usage'));
    expect(res.status).toBe(429);
    expect(sent).toHaveLength(3);
    // No Retry-After: the wait doubles.
    expect(waits).toEqual([100, 200]);
  });

  it('does not wait past maxDelayMs: an answer asking for longer is returned at once', async () => {
    const { sent, fetch } = scripted(problem(429, { 'retry-after': '120' }), accepted());
    const res = await retryingFetch({ maxDelayMs: 30_000 }, { fetch, sleep })(new Request('http://gw/v1/usage'));
    expect(res.status).toBe(429);
    expect(sent).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('never sends a POST again after a 503 without an Idempotency-Key (it may have been done)', async () => {
    const { sent, fetch } = scripted(problem(503, { 'retry-after': '1' }), accepted());
    const res = await retryingFetch({}, { fetch, sleep })(new Request('http://gw/x', { method: 'POST', body: '{}' }));
    expect(res.status).toBe(503);
    expect(sent).toHaveLength(1);
  });

  it('does not retry other refusals', async () => {
    const { sent, fetch } = scripted(problem(500), problem(400));
    const retrying = retryingFetch({}, { fetch, sleep });
    expect((await retrying(new Request('http://gw/v1/usage'))).status).toBe(500);
    expect((await retrying(new Request('http://gw/v1/usage'))).status).toBe(400);
    expect(sent).toHaveLength(2);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(retryAfterMs('5')).toBe(5000);
    expect(retryAfterMs('Thu, 26 Nov 2026 12:00:10 GMT', Date.parse('2026-11-26T12:00:00Z'))).toBe(10_000);
    expect(retryAfterMs(null)).toBeUndefined();
    expect(retryAfterMs('soon')).toBeUndefined();
  });
});

describe("a send's Idempotency-Key", () => {
  const client = (fetch: (r: Request) => Promise<Response>) =>
    createGatewayClient({ baseUrl: 'http://gw/', token: 'gk_test', fetch, retry: { baseDelayMs: 1 } });

  it('is made per send and kept across its retries', async () => {
    const { sent, fetch } = scripted(
      problem(503, { 'retry-after': '0' }),
      problem(429, { 'retry-after': '0' }),
      accepted('m-1'),
      accepted('m-2'),
    );
    const gateway = client(fetch);
    expect(await gateway.send(send)).toEqual({ id: 'm-1', status: 'QUEUED' });
    expect(await gateway.send(send)).toEqual({ id: 'm-2', status: 'QUEUED' });
    const keys = sent.map((s) => s.headers.get('idempotency-key'));
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    // The three tries of the first send carry one key; the second send has a key of its own.
    expect(keys.slice(0, 3)).toEqual([keys[0], keys[0], keys[0]]);
    expect(keys[3]).not.toBe(keys[0]);
    expect(sent.map((s) => [s.method, s.url, s.headers.get('authorization')])).toEqual(
      Array(4).fill(['POST', 'http://gw/v1/messages', 'Bearer gk_test']),
    );
    expect(JSON.parse(sent[2].body)).toEqual(send);
  });

  it("is the caller's when given, and a refusal throws with its problem", async () => {
    const { sent, fetch } = scripted(problem(422));
    const err = (await client(fetch)
      .send(send, { idempotencyKey: 'order-1042' })
      .catch((e: unknown) => e)) as MessagingError;
    expect(err).toBeInstanceOf(MessagingError);
    expect(err.status).toBe(422);
    expect(err.problem?.title).toBe('Refused');
    expect(sent[0].headers.get('idempotency-key')).toBe('order-1042');
  });
});
