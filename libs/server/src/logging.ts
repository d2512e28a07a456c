import { RequestMethod } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import type { IncomingMessage } from 'node:http';

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
}

/** The pino-http options of every service's access log (see loggingModule). */
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
    autoLogging: {
      ignore: (req: IncomingMessage) => /^\/(healthz|readyz|metrics)/.test(req.url ?? ''),
    },
  };
}

/**
 * Structured JSON logs with the request id; secrets and bodies are never logged. Health, readiness
 * and metrics requests are not logged (probes would drown everything else).
 */
export function loggingModule(service: string, level: string, opts: LoggingOptions = {}) {
  return LoggerModule.forRoot({
    forRoutes: [{ path: '{*path}', method: RequestMethod.ALL }],
    pinoHttp: httpLogOptions(service, level, opts),
  });
}
