import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AnswerTooLargeError } from '@app/egress';
import { startFloodServer } from '@app/testing';
import { httpCall } from './http-call';

describe('httpCall', () => {
  let server: Server;
  let base: string;
  const seen: { method?: string; auth?: string; body: string }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        seen.push({ method: req.method, auth: req.headers.authorization, body });
        if (req.url === '/hang') return;
        if (req.url === '/busy') {
          res.writeHead(429, { 'Retry-After': '7', 'Content-Type': 'application/json' });
          return res.end('{"error":{"code":130429}}');
        }
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ echo: body }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('sends the method, headers and body and answers status, headers and text', async () => {
    const res = await httpCall(new URL(`${base}/ok`), {
      method: 'POST',
      headers: { Authorization: 'Bearer t', 'Content-Type': 'application/json' },
      body: '{"a":1}',
      signal: AbortSignal.timeout(5000),
    });
    expect(res.ok).toBe(true);
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toBe('application/json');
    expect(JSON.parse(await res.text())).toEqual({ echo: '{"a":1}' });
    expect(seen.at(-1)).toEqual({ method: 'POST', auth: 'Bearer t', body: '{"a":1}' });
  });

  it('an error status is an answer, not a failure', async () => {
    const res = await httpCall(new URL(`${base}/busy`), {
      method: 'GET',
      headers: {},
      signal: AbortSignal.timeout(5000),
    });
    expect(res.ok).toBe(false);
    expect(res.status).toBe(429);
    expect(res.statusText).toBe('Too Many Requests');
    expect(res.headers.get('retry-after')).toBe('7');
    expect(res.headers.get('x-missing')).toBeNull();
  });

  it('the signal ends a call that gets no answer; an unreachable host rejects', async () => {
    const signal = AbortSignal.timeout(200);
    await expect(httpCall(new URL(`${base}/hang`), { method: 'GET', headers: {}, signal })).rejects.toThrow();
    expect(signal.aborted).toBe(true);
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    await expect(
      httpCall(new URL(`http://127.0.0.1:${port}/`), { method: 'GET', headers: {}, signal: AbortSignal.timeout(5000) }),
    ).rejects.toThrow(/ECONNREFUSED/);
  });

  it('stops reading a 150 MiB answer at the cap and fails the call, instead of holding it all', async () => {
    const flood = await startFloodServer(150 * 1024 * 1024);
    try {
      const before = process.memoryUsage().rss;
      await expect(
        httpCall(new URL(flood.url), { method: 'POST', headers: {}, body: '{}', signal: AbortSignal.timeout(20_000) }),
      ).rejects.toBeInstanceOf(AnswerTooLargeError);
      await flood.ended();
      expect(flood.sent()).toBeLessThan(18 * 1024 * 1024);
      expect(process.memoryUsage().rss - before).toBeLessThan(100 * 1024 * 1024);
      await expect(
        httpCall(new URL(flood.url), {
          method: 'GET',
          headers: {},
          maxAnswerBytes: 1000,
          signal: AbortSignal.timeout(5000),
        }),
      ).rejects.toThrow(/larger than 1000 bytes/);
    } finally {
      await flood.close();
    }
  });
});
