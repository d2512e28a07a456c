import 'reflect-metadata';
import { DynamicModule, INestApplication, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger as PinoNestLogger } from 'nestjs-pino';
import { randomUUID } from 'node:crypto';
import { PrefixedServerNats } from '@app/messaging';
import { httpRequestDuration, startDefaultMetrics } from './metrics';
import { ProblemFilter } from './problem.filter';
import { createValidationPipe } from './validation';

export const BODY_LIMIT_BYTES = 1024 * 1024;

export interface HttpAppOptions {
  /** The service name: logs, metrics, NATS connection names. */
  name: string;
  /** Serve request/reply patterns from this app's @MessagePattern handlers. */
  rpc?: { url: string; prefix: string; queue: string };
  /** Path prefix for every route but health, readiness and metrics (the api uses `api`). */
  globalPrefix?: string;
  /** How long requests in flight may take to finish once the HTTP server closes. */
  shutdownTimeoutMs?: number;
  /** Extra setup on the app before it starts (OpenAPI, static pages, ...). */
  configure?: (app: NestFastifyApplication) => void | Promise<void>;
}

/**
 * Builds a NestJS application on Fastify with the platform's common behaviour: 1 MiB JSON bodies,
 * strict validation, RFC 9457 problems for every error (including the parser's), request ids,
 * structured logs, metrics and graceful shutdown. The caller listens.
 */
export async function createHttpApp(
  module: Type<unknown> | DynamicModule,
  opts: HttpAppOptions,
): Promise<NestFastifyApplication> {
  startDefaultMetrics(opts.name);
  const adapter = new FastifyAdapter({
    bodyLimit: BODY_LIMIT_BYTES,
    genReqId: (req: { headers: Record<string, string | string[] | undefined> }) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.-]{1,128}$/.test(given) ? given : randomUUID();
    },
    requestIdHeader: false,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
  });
  const app = await NestFactory.create<NestFastifyApplication>(module, adapter, {
    bufferLogs: true,
    abortOnError: false,
  });
  app.useLogger(app.get(PinoNestLogger));
  app.flushLogs();
  if (opts.globalPrefix) {
    app.setGlobalPrefix(opts.globalPrefix, { exclude: ['healthz', 'readyz', 'metrics'] });
  }
  app.useGlobalFilters(new ProblemFilter());
  app.useGlobalPipes(createValidationPipe());
  app.enableShutdownHooks();

  const fastify = app.getHttpAdapter().getInstance();
  // Bodies are JSON: without this, Fastify's built-in text/plain parser hands a string to the
  // handlers (a 400 at best) where DESIGN.md section 8 wants 415.
  fastify.removeContentTypeParser('text/plain');
  // Parser errors (bad JSON, 413, 415) reach the ProblemFilter through Nest's own Fastify error handler.
  // Closing: requests in flight still get their answer, but with `Connection: close`, so their
  // keep-alive sockets end with them (otherwise close() waits out the 72 s keep-alive timeout).
  // Whatever is still open after the shutdown timeout is cut.
  let closing = false;
  fastify.addHook('preClose', async () => {
    closing = true;
    setTimeout(() => fastify.server.closeAllConnections(), opts.shutdownTimeoutMs ?? 10_000).unref();
  });
  fastify.addHook('onSend', async (request, reply, payload) => {
    reply.header('X-Request-Id', request.id);
    if (closing) reply.header('Connection', 'close');
    return payload;
  });
  fastify.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions?.url ?? 'unmatched';
    httpRequestDuration()
      .labels(request.method, route, String(reply.statusCode))
      .observe(reply.elapsedTime / 1000);
  });

  if (opts.rpc) {
    app.connectMicroservice(
      {
        strategy: new PrefixedServerNats(
          { servers: opts.rpc.url.split(','), queue: opts.rpc.queue, name: `${opts.name}-rpc-server` },
          opts.rpc.prefix,
        ),
      },
      { inheritAppConfig: false },
    );
  }
  await opts.configure?.(app);
  if (opts.rpc) await app.startAllMicroservices();
  return app;
}

/** Listens on every interface and logs where; used by each service's main.ts. */
export async function listen(app: INestApplication, port: number, host = '0.0.0.0'): Promise<string> {
  await app.listen(port, host);
  return app.getUrl();
}
