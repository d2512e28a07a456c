import Fastify, { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { storage } from 'nestjs-pino/storage';
import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { pinoHttp } from 'pino-http';
import { BodyBudget } from './body-budget';
import { installJsonBodies } from './json-body';
import { httpLogOptions, installRequestLogging } from './logging';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A Fastify server with the platform's request logging and JSON bodies, logging at `level` into
 * `lines`, whose `POST /items` is `handler`.
 */
async function server(
  level: string,
  lines: Record<string, unknown>[],
  handler: (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>,
): Promise<FastifyInstance> {
  const http = pinoHttp(
    httpLogOptions('test', level),
    // pino's destination: one JSON line per write.
    { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  const fastify = Fastify();
  installRequestLogging(fastify, http);
  installJsonBodies(fastify, new BodyBudget(1024 * 1024, 4, 1000));
  fastify.post('/items', handler);
  await fastify.listen({ port: 0, host: '127.0.0.1' });
  return fastify;
}

/** POSTs `body` through `agent` (a kept-alive connection) and resolves with the status once the answer ends. */
function post(fastify: FastifyInstance, agent: Agent, path: string, body: string): Promise<number> {
  const { port } = fastify.server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: 'POST', agent, headers: { 'content-type': 'application/json' } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('request logging', () => {
  let fastify: FastifyInstance | undefined;
  let agent: Agent;

  beforeEach(() => {
    agent = new Agent({ keepAlive: true });
  });

  afterEach(async () => {
    agent.destroy();
    await fastify?.close();
    fastify = undefined;
  });

  it("lets go of a request's body once it is answered, though the client keeps its connection open", async () => {
    // The connection's keep-alive timeout is created while the answer is sent, inside the request's
    // logging context: the context must not keep the request (and its body) for the 72 s it lives.
    const bodies: WeakRef<object>[] = [];
    fastify = await server('info', [], async (req, reply) => {
      bodies.push(new WeakRef(req.body as object));
      // Nest's adapter awaits the reply before it is sent: Fastify then waits for the response's end
      // with a callback that holds the request, and its listeners stay on the response.
      const answered = new Promise<void>((resolve) => void reply.then(resolve, () => resolve()));
      void reply.send({ received: true });
      await answered;
    });
    for (let i = 0; i < 3; i++) {
      expect(
        await post(fastify, agent, '/items', JSON.stringify({ items: Array.from({ length: 1000 }, () => [i]) })),
      ).toBe(200);
    }
    expect(Object.values(agent.freeSockets).flat()).toHaveLength(1);
    await sleep(20);
    gc();
    await sleep(20);
    gc();
    expect(bodies.map((b) => b.deref() === undefined)).toEqual([true, true, true]);
  });

  it("binds what is logged after the answer to the request's id, method and path", async () => {
    const lines: Record<string, unknown>[] = [];
    let late!: Promise<void>;
    fastify = await server('warn', lines, async () => {
      late = new Promise<void>((resolve) =>
        setTimeout(() => {
          storage.getStore()?.logger.warn('after the answer');
          resolve();
        }, 30),
      );
      return { received: true };
    });
    expect(await post(fastify, agent, '/items?secret=1', '{"a":1}')).toBe(200);
    await late;
    expect(lines).toEqual([
      expect.objectContaining({
        msg: 'after the answer',
        service: 'test',
        req: { id: expect.any(String), method: 'POST', url: '/items' },
      }),
    ]);
  });
});
