import Fastify, { FastifyInstance } from 'fastify';
import type { HttpAdapterHost } from '@nestjs/core';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RAW_BODY, RawBodyCapture, rawBodyOf } from './raw-body.capture';

async function server(bodyLimit = 1024): Promise<FastifyInstance> {
  const fastify = Fastify({ bodyLimit });
  new RawBodyCapture({ httpAdapter: { getInstance: () => fastify } } as unknown as HttpAdapterHost).onModuleInit();
  const echo = (req: { body: unknown }) => ({
    parsed: req.body,
    raw: rawBodyOf(req as never)?.toString('latin1') ?? null,
  });
  fastify.post('/raw', { config: RAW_BODY }, echo);
  fastify.post('/plain', echo);
  await fastify.listen({ port: 0, host: '127.0.0.1' });
  return fastify;
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
): Promise<{ status: number; body: unknown } | 'cut'> {
  const { port } = fastify.server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: 'POST', headers: { 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
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

describe('RawBodyCapture', () => {
  let fastify: FastifyInstance;
  afterEach(() => fastify?.close());

  it('keeps the exact bytes of a chunked body on a RAW_BODY route, and the JSON parser still parses them', async () => {
    fastify = await server();
    expect(await post(fastify, '/raw', ['{"a": 1,', '  "b":"\u00e9"', '}'])).toEqual({
      status: 200,
      body: { parsed: { a: 1, b: '\u00e9' }, raw: Buffer.from('{"a": 1,  "b":"\u00e9"}').toString('latin1') },
    });
  });

  it('keeps nothing on other routes', async () => {
    fastify = await server();
    expect(await post(fastify, '/plain', ['{"a":', '1}'])).toEqual({
      status: 200,
      body: { parsed: { a: 1 }, raw: null },
    });
  });

  it('leaves the body limit and the parse errors as they are', async () => {
    fastify = await server(16);
    expect(await post(fastify, '/raw', ['{"a":"', 'x'.repeat(40), '"}'])).toMatchObject({ status: 413 });
    expect(await post(fastify, '/raw', ['{"a":'])).toMatchObject({ status: 400 });
  });

  it('a client that goes away mid-body leaves the server answering the next request', async () => {
    fastify = await server();
    expect(await post(fastify, '/raw', ['{"a":'], true)).toBe('cut');
    expect(await post(fastify, '/raw', ['{"a":', '2}'])).toMatchObject({ status: 200, body: { raw: '{"a":2}' } });
  });
});
