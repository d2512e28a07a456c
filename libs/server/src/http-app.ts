import 'reflect-metadata';
import { DynamicModule, INestApplication, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Logger as PinoNestLogger } from 'nestjs-pino';
import { randomUUID } from 'node:crypto';
import { natsAuth, PrefixedServerNats, RECONNECT_FOREVER } from '@app/messaging';
import { startAdminServer } from './health';
import { httpRequestDuration, startDefaultMetrics } from './metrics';
import { installJsonBodies } from './json-body';
import { installRequestLogging, REQUEST_LOGGER } from './logging';
import { ProblemFilter, sendClientErrorProblem, sendProblem } from './problem.filter';
import { startTracing, traceHttpRequests } from './tracing';
import { createValidationPipe } from './validation';

/**
 * The largest JSON body a route takes unless its config says otherwise. No request of the platform
 * comes near it (the validation pipe takes at most 2,000 values); parsed, 256 KiB of the densest
 * JSON takes about 7 MiB of heap, so one such body cannot exhaust a service's.
 */
export const BODY_LIMIT_BYTES = 256 * 1024;

/**
 * Route config of a route that takes larger bodies than BODY_LIMIT_BYTES:
 * `@RouteConfig({ bodyLimit })` (Nest hands a route's config to Fastify, not its options).
 */
export interface BodyLimitConfig {
  bodyLimit?: number;
}

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
 * Builds a NestJS application on Fastify with the platform's common behaviour: 256 KiB JSON bodies
 * (unless a route's config says otherwise), nested at most 64 levels and parsed within the process's
 * body budget (json-body.ts),
 * strict validation, RFC 9457 problems for every error (including the parser's), request ids,
 * structured logs, metrics and graceful shutdown. The caller listens.
 */
export async function createHttpApp(
  module: Type<unknown> | DynamicModule,
  opts: HttpAppOptions,
): Promise<NestFastifyApplication> {
  startDefaultMetrics(opts.name);
  await startTracing(opts.name);
  const adapter = new FastifyAdapter({
    bodyLimit: BODY_LIMIT_BYTES,
    genReqId: (req: { headers: Record<string, string | string[] | undefined> }) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.-]{1,128}$/.test(given) ? given : randomUUID();
    },
    requestIdHeader: false,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // Fastify's own refusals (bad percent-encoding, an over-long path segment, bytes Node's parser
    // rejects, oversized headers) answer in its JSON format and may quote the URL: route them
    // through the problem format instead.
    frameworkErrors: (err: Error, request: FastifyRequest, reply: FastifyReply) => sendProblem(reply, request, err),
    clientErrorHandler: sendClientErrorProblem,
  });
  adapter.getInstance().addHook('onRoute', (route) => {
    const limit = (route.config as BodyLimitConfig | undefined)?.bodyLimit;
    if (limit !== undefined) route.bodyLimit = limit;
  });
  const app = await NestFactory.create<NestFastifyApplication>(module, adapter, {
    bufferLogs: true,
    abortOnError: false,
    // Bodies are parsed by installJsonBodies alone (Nest's parsers would read JSON without its
    // limits, and forms that no route but the course callbacks takes).
    bodyParser: false,
  });
  app.useLogger(app.get(PinoNestLogger));
  app.flushLogs();
  if (opts.globalPrefix) {
    app.setGlobalPrefix(opts.globalPrefix, { exclude: ['healthz'] });
  }
  app.useGlobalFilters(new ProblemFilter());
  app.useGlobalPipes(createValidationPipe());
  app.enableShutdownHooks();

  const fastify = app.getHttpAdapter().getInstance();
  installRequestLogging(fastify, app.get(REQUEST_LOGGER, { strict: false }));
  installJsonBodies(fastify);
  traceHttpRequests(fastify);
  // Bodies are JSON: without this, Fastify's built-in text/plain parser hands a string to the
  // handlers (a 400 at best) where docs/errors.md promises 415.
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
          {
            ...natsAuth(),
            ...RECONNECT_FOREVER,
            servers: opts.rpc.url.split(','),
            queue: opts.rpc.queue,
            name: `${opts.name}-rpc-server`,
          },
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

/**
 * Listens on every interface, and opens the admin listener (`/readyz`, `/metrics`) on `adminPort`,
 * by default the public port + 1000. Used by each service's main.ts and the test harness.
 */
export async function listen(
  app: INestApplication,
  port: number,
  adminPort: number = port + ADMIN_PORT_OFFSET,
  host = '0.0.0.0',
): Promise<string> {
  await app.listen(port, host);
  await startAdminServer(app, adminPort, host);
  return app.getUrl();
}

export const ADMIN_PORT_OFFSET = 1000;
