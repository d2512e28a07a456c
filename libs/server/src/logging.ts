import { RequestMethod } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import type { IncomingMessage } from 'node:http';

/**
 * Structured JSON logs with the request id; secrets and bodies are never logged. Health, readiness
 * and metrics requests are not logged (probes would drown everything else).
 */
export function loggingModule(service: string, level: string) {
  return LoggerModule.forRoot({
    forRoutes: [{ path: '{*path}', method: RequestMethod.ALL }],
    pinoHttp: {
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
        req: (req: { id?: string; method?: string; url?: string }) => ({
          id: req.id,
          method: req.method,
          url: req.url,
        }),
        res: (res: { statusCode?: number }) => ({ status: res.statusCode }),
      },
      autoLogging: {
        ignore: (req: IncomingMessage) => /^\/(healthz|readyz|metrics)/.test(req.url ?? ''),
      },
    },
  });
}
