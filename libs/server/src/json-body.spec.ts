import Fastify, { FastifyInstance } from 'fastify';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { BodyBudget } from './body-budget';
import { installJsonBodies, jsonBodyOf, MAX_JSON_DEPTH, parsedCost, RAW_BODY, rawBodyOf, scanJson } from './json-body';

/** A Fastify server with the platform's JSON bodies; `/held` answers when `release()` is called. */
async function server(budget = new BodyBudget(1024 * 1024, 4, 1000), bodyLimit = 1024) {
  const fastify = Fastify({ bodyLimit });
  installJsonBodies(fastify, budget);
  const waiting: (() => void)[] = [];
  fastify.post('/raw', { config: RAW_BODY }, async (req) => ({
    raw: rawBodyOf(req)?.toString('latin1') ?? null,
    parsed: await jsonBodyOf(req),
  }));
  fastify.post('/plain', async (req) => ({ parsed: req.body, raw: rawBodyOf(req) ?? null }));
  fastify.post('/held', async (req) => {
    await new Promise<void>((resolve) => waiting.push(resolve));
    return { parsed: req.body };
  });
  await fastify.listen({ port: 0, host: '127.0.0.1' });
  return { fastify, release: () => waiting.shift()?.(), waiting };
}

/**
 * POSTs `parts` as separate chunks a moment apart (as a slow client sends them); with `abort`, the
 * connection is cut after the first one. Resolves with the status and the parsed answer.
 */
function post(
  fastify: FastifyInstance,
  path: string,
  parts: string[],
  abort = false,
): Promise<{ status: number; body: unknown; headers: Record<string, unknown> } | 'cut'> {
  const { port } = fastify.server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: 'POST', headers: { 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text), headers: res.headers }));
      },
    );
    req.on('error', (err) => (abort ? resolve('cut') : reject(err)));
    const next = (i: number) => {
      if (i === parts.length) return req.end();
      req.write(parts[i]);
      if (abort) return setTimeout(() => req.destroy(), 20);
      setTimeout(() => next(i + 1), 5);
    };
    next(0);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** What the heap's reading may move by between two collections, the parse aside. */
const HEAP_NOISE = 32 * 1024;

describe('scanJson', () => {
  it('counts nesting and tokens outside strings only', () => {
    expect(scanJson(Buffer.from('{"a":[1,2,{"b":"[{,:\\"]"}]}'))).toEqual({ tooDeep: false, tokens: 7, wide: false });
    expect(scanJson(Buffer.from('"\\u00e9"')).wide).toBe(true);
    expect(scanJson(Buffer.from('"é"')).wide).toBe(true);
  });

  it(`stops at the ${MAX_JSON_DEPTH + 1}th level, whatever follows`, () => {
    const deep = (n: number) => Buffer.from('['.repeat(n) + ']'.repeat(n));
    expect(scanJson(deep(MAX_JSON_DEPTH)).tooDeep).toBe(false);
    expect(scanJson(deep(MAX_JSON_DEPTH + 1)).tooDeep).toBe(true);
    expect(scanJson(Buffer.from('['.repeat(1_000_000))).tooDeep).toBe(true);
    // Brackets inside a string are text.
    expect(scanJson(Buffer.from(`["${'['.repeat(1000)}"]`)).tooDeep).toBe(false);
  });

  it('estimates at least the heap a dense body takes', () => {
    const dense = Buffer.from(`[${Array(1000).fill('{}').join(',')}]`);
    // 1000 objects and 999 commas: 22 bytes of heap per byte measured, 64 per token assumed.
    expect(parsedCost(scanJson(dense), dense.length)).toBeGreaterThan(dense.length * 30);
  });

  it.each([
    ['nested arrays', `[${Array(12_000).fill('[[[[[[[[[[]]]]]]]]]]').join(',')}]`],
    ['empty objects', `[${Array(80_000).fill('{}').join(',')}]`],
    ['objects of unique keys', `{${Array.from({ length: 20_000 }, (_, i) => `"key${i}":${i}`).join(',')}}`],
    ['one long string', JSON.stringify('x'.repeat(250_000))],
    ['strings past Latin-1', JSON.stringify(Array.from({ length: 4_000 }, (_, i) => `€${'ж'.repeat(25)}${i}`))],
  ])('counts every copy a parse of %s holds at once: the bytes, the text and the value', (_shape, json) => {
    const raw = Buffer.from(json);
    gc();
    const before = process.memoryUsage();
    const text = raw.toString('utf8');
    const value: unknown = JSON.parse(text);
    gc();
    const after = process.memoryUsage();
    const taken = after.heapUsed - before.heapUsed + raw.length;
    expect([text.length > 0, value !== undefined]).toEqual([true, true]);
    // The heap also holds whatever else ran between the two readings (a few hundred bytes to a few
    // KiB of the test runner's own); a copy missed would be hundreds of KiB.
    expect(parsedCost(scanJson(raw), raw.length)).toBeGreaterThanOrEqual(taken - HEAP_NOISE);
  });
});

describe('JSON bodies', () => {
  let fastify: FastifyInstance;
  afterEach(() => fastify?.close());

  it('keeps the exact bytes of a chunked body on a RAW_BODY route and parses them when the handler asks', async () => {
    ({ fastify } = await server());
    expect(await post(fastify, '/raw', ['{"a": 1,', '  "b":"\u00e9"', '}'])).toMatchObject({
      status: 200,
      body: { parsed: { a: 1, b: '\u00e9' }, raw: Buffer.from('{"a": 1,  "b":"\u00e9"}').toString('latin1') },
    });
    expect(await post(fastify, '/plain', ['{"a":', '1}'])).toMatchObject({
      status: 200,
      body: { parsed: { a: 1 }, raw: null },
    });
  });

  it('refuses a body nested too deep with 400 before parsing it, on every route', async () => {
    ({ fastify } = await server(undefined, 4 * 1024 * 1024));
    const deep = `{"x":${'['.repeat(1_500_000)}}`;
    for (const path of ['/plain', '/raw']) {
      const res = await post(fastify, path, [deep]);
      expect(res).toMatchObject({ status: 400 });
      expect(JSON.stringify(res)).toContain('nested more than 64 levels');
    }
    expect(await post(fastify, '/plain', [`{"x":${'['.repeat(63)}${']'.repeat(63)}}`])).toMatchObject({ status: 200 });
  });

  it('keeps the limits, the errors and the prototype-poisoning refusal of the framework', async () => {
    ({ fastify } = await server());
    expect(await post(fastify, '/raw', ['{"a":"', 'x'.repeat(2000), '"}'])).toMatchObject({ status: 413 });
    expect(await post(fastify, '/plain', ['{"a":'])).toMatchObject({ status: 400 });
    expect(await post(fastify, '/raw', ['{"a":'])).toMatchObject({ status: 400 });
    expect(await post(fastify, '/plain', ['{"__proto__":{"x":1}}'])).toMatchObject({ status: 400 });
    expect(await post(fastify, '/plain', [''])).toMatchObject({ status: 400 });
  });

  it('a body cut by its client is not answered and holds nothing', async () => {
    const budget = new BodyBudget(1024 * 1024, 4, 1000);
    ({ fastify } = await server(budget));
    expect(await post(fastify, '/raw', ['{"a":'], true)).toBe('cut');
    expect(await post(fastify, '/raw', ['{"a":', '2}'])).toMatchObject({ status: 200, body: { raw: '{"a":2}' } });
    expect(budget.held).toBe(0);
  });

  it('holds large bodies within the budget until each is answered: the next waits, then is refused with 503', async () => {
    // Each body below is estimated at ~40 KiB of heap; the budget takes one at a time.
    const budget = new BodyBudget(50 * 1024, 1, 300);
    const s = await server(budget, 64 * 1024);
    fastify = s.fastify;
    const body = `[${Array(600).fill('{}').join(',')}]`;
    const first = post(fastify, '/held', [body]);
    while (s.waiting.length === 0) await sleep(5);
    expect(budget.held).toBeGreaterThan(30 * 1024);
    const second = post(fastify, '/held', [body]);
    const third = await post(fastify, '/held', [body]);
    // One waits (the line holds one), the third is refused at once.
    expect(third).toMatchObject({ status: 503, headers: { 'retry-after': '1' } });
    s.release();
    expect(await first).toMatchObject({ status: 200 });
    while (s.waiting.length === 0) await sleep(5);
    s.release();
    expect(await second).toMatchObject({ status: 200 });
    await sleep(20);
    expect(budget.held).toBe(0);
    // A small body never waits, whatever is held.
    expect(await post(fastify, '/plain', ['{"a":[1,2,3]}'])).toMatchObject({ status: 200 });
  });
});

describe('BodyBudget', () => {
  it('serves in arrival order: a large body waiting holds back smaller ones, and goes alone when larger than all', async () => {
    const budget = new BodyBudget(100, 4, 1000);
    const order: string[] = [];
    expect(budget.acquire(60)).toBeUndefined();
    const large = budget.acquire(150)?.then(() => order.push('large'));
    const small = budget.acquire(10)?.then(() => order.push('small'));
    expect(large).toBeDefined();
    expect(small).toBeDefined();
    budget.release(60);
    await large;
    expect(order).toEqual(['large']);
    budget.release(150);
    await small;
    expect(order).toEqual(['large', 'small']);
    expect(budget.held).toBe(10);
  });

  it('refuses past its line, and after the longest wait', async () => {
    const budget = new BodyBudget(100, 1, 50);
    budget.acquire(100);
    const waiting = budget.acquire(50);
    await expect(budget.acquire(50)).rejects.toMatchObject({ status: 503 });
    await expect(waiting).rejects.toMatchObject({ status: 503, headers: { 'Retry-After': '1' } });
    budget.release(100);
    expect(budget.held).toBe(0);
  });

  it('runs work holding its share, one at a time past the capacity, releasing it however the work ends', async () => {
    const line = new BodyBudget(1, 4, 1000, () => new Error('busy'));
    let running = 0;
    let most = 0;
    const work = (fail: boolean) =>
      line.holding(1, async () => {
        running++;
        most = Math.max(most, running);
        await new Promise((r) => setTimeout(r, 5));
        running--;
        if (fail) throw new Error('failed');
        return 'done';
      });
    const results = await Promise.allSettled([work(false), work(true), work(false)]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(most).toBe(1);
    expect(line.held).toBe(0);
    const full = new BodyBudget(1, 0, 1000, () => new Error('busy'));
    const first = full.holding(1, () => new Promise((r) => setTimeout(r, 20)));
    await expect(full.holding(1, async () => 'never')).rejects.toThrow('busy');
    await first;
  });
});
