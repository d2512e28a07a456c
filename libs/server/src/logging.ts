import { DynamicModule } from '@nestjs/common';
import type { FastifyInstance } from 'fastify';
import { LoggerModule, PinoLogger } from 'nestjs-pino';
import { Store, storage } from 'nestjs-pino/storage';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DestinationStream, levels } from 'pino';
import { HttpLogger, pinoHttp } from 'pino-http';

/**
 * The path of a request URL without its query string: queries can carry credentials (an onboarding
 * link's `t`, a mistaken `access_token`) and logs outlive them.
 */
export function pathOf(url: string | undefined): string | undefined {
  return url?.split('?')[0];
}

/**
 * What a request log line says about the request: never its query, headers or body. `hidePath`
 * blanks what a path itself carries as a credential (the pixel's token).
 */
export function requestLogFields(
  req: { id?: string; method?: string; url?: string },
  hidePath: (path: string) => string = (path) => path,
) {
  const path = pathOf(req.url);
  return { id: req.id, method: req.method, url: path === undefined ? undefined : hidePath(path) };
}

export interface LoggingOptions {
  /** Rewrites a request's path before it is logged: credentials in paths are never written. */
  hidePath?: (path: string) => string;
  /** Where the lines go: stdout unless given. */
  destination?: DestinationStream;
}

/** Whether a logger at `level` writes lines of `lineLevel` ('silent' writes none). */
function writes(level: string, lineLevel: string): boolean {
  const at = levels.values[level];
  return at !== undefined && at <= levels.values[lineLevel];
}

/**
 * The pino-http options of every service's access log (see loggingModule). The access line is
 * written at info: below that level the per-request bookkeeping of the line (listeners on the
 * response, its timing) is not set up at all, since it could never be written.
 */
export function httpLogOptions(service: string, level: string, opts: LoggingOptions = {}) {
  return {
    level,
    base: { service },
    messageKey: 'msg',
    genReqId: (req: IncomingMessage) => (req as IncomingMessage & { id?: string }).id ?? '',
    customAttributeKeys: { reqId: 'request_id' },
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'req.headers["x-hub-signature-256"]',
        'req.headers["x-telegram-bot-api-secret-token"]',
      ],
      remove: true,
    },
    serializers: {
      req: (req: { id?: string; method?: string; url?: string }) => requestLogFields(req, opts.hidePath),
      res: (res: { statusCode?: number }) => ({ status: res.statusCode }),
    },
    autoLogging: writes(level, 'info') && {
      ignore: (req: IncomingMessage) => /^\/(healthz|readyz|metrics)/.test(req.url ?? ''),
    },
  };
}

/** The provider of a service's request logger (see installRequestLogging). */
export const REQUEST_LOGGER = Symbol('REQUEST_LOGGER');

/**
 * Structured JSON logs with the request id; secrets and bodies are never logged. Health, readiness
 * and metrics requests are not logged (probes would drown everything else). Nest's logger writes
 * through the same pino logger; each request's logger is bound by installRequestLogging, a Fastify
 * hook, rather than by a Nest middleware, which would run every request through Nest's middleware
 * layer for this alone.
 */
export function loggingModule(service: string, level: string, opts: LoggingOptions = {}): DynamicModule {
  const http = pinoHttp(httpLogOptions(service, level, opts), opts.destination);
  // What nestjs-pino's own middleware would set: the logger outside any request.
  (PinoLogger as unknown as { root: unknown }).root = http.logger;
  const module = LoggerModule.forRoot({ pinoHttp: { logger: http.logger }, useExisting: true, forRoutes: [] });
  return {
    ...module,
    providers: [...(module.providers ?? []), { provide: REQUEST_LOGGER, useValue: http }],
    exports: [...(module.exports ?? []), REQUEST_LOGGER],
  };
}

type LoggedRequest = IncomingMessage & { id?: string; log?: Store['logger']; originalUrl?: string };

/**
 * A request's logging context whose logger is made when something first asks for it: the child
 * logger (the request's bindings serialized, redaction set up) is most of what logging costs a
 * request that logs nothing, as nearly every request does when the service logs at warn or above.
 * Built when asked, it binds the same request id, method and path as one built when the request
 * came in.
 *
 * The context outlives its request: every timer and socket callback created while the request is
 * handled keeps it (AsyncLocalStorage), among them the keep-alive timeout Node sets on the
 * connection as the answer ends, which lives for the 72 s a client may keep the connection idle.
 * So it holds the request and its response only until the response is over: through the
 * response's listeners they reach the request's parsed body, and 16 connections each keeping a
 * dense 250 KiB body (6 MiB parsed) exhausted the gateway's heap, whatever the body budget said.
 */
class RequestLogContext {
  private bound?: Store['logger'];
  private exchange?: { req: LoggedRequest; res: ServerResponse };
  /** What the request's bindings are made of once the request itself is let go. */
  private readonly line: { id?: string; method?: string; url?: string };

  constructor(
    private readonly http: HttpLogger,
    req: LoggedRequest,
    res: ServerResponse,
  ) {
    this.exchange = { req, res };
    // The fields the request serializer reads (pino's prefers originalUrl to url).
    this.line = { id: req.id, method: req.method, url: req.originalUrl ?? req.url };
    res.once('close', () => (this.exchange = undefined));
  }

  get logger(): Store['logger'] {
    if (!this.bound) {
      if (this.exchange) {
        this.http(this.exchange.req, this.exchange.res);
        this.bound = this.exchange.req.log!;
      } else {
        // Something logs after the answer (a late callback): the same bindings, from the fields kept.
        this.bound = this.http.logger.child({ req: this.line });
      }
    }
    return this.bound;
  }

  /** nestjs-pino's `assign` replaces the logger with a child carrying more fields. */
  set logger(logger: Store['logger']) {
    this.bound = logger;
  }
}

/**
 * Gives every request its logger (request id, method and path) for everything logged while it is
 * handled, and its access line. The hook runs before the body is read, so the parser and the
 * handler run inside the request's logging context. Where the access line is written (info and
 * below) the logger is bound when the request comes in; above info, when something first logs.
 */
export function installRequestLogging(fastify: FastifyInstance, http: HttpLogger): void {
  const accessLine = http.logger.isLevelEnabled('info');
  fastify.addHook('onRequest', (request, reply, done) => {
    const req = request.raw as LoggedRequest;
    req.id = request.id;
    const context = new RequestLogContext(http, req, reply.raw as ServerResponse);
    // The access line is set up with the logger: bound now where it is written.
    if (accessLine) void context.logger;
    storage.run(context as unknown as Store, done);
  });
}
