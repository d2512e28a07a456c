import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { createGzip } from 'node:zlib';
import { Logger } from '@nestjs/common';
import { NotFoundProblem, ProblemError, sendProblem } from '@app/server';
import { GatewayConfig } from '../config';
import { ConsoleAuditRepository } from './console-audit.repository';
import { ConsoleRequest } from './console-auth';

/** The policy of every /console answer: the app's own files only, no inline script or style, no framing. */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
  '.txt': 'text/plain; charset=utf-8',
};
const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.json', '.map', '.svg', '.txt', '.ttf']);
const READS = new Set(['GET', 'HEAD']);
const logger = new Logger('Console');

const isConsolePath = (url: string) => url === '/console' || /^\/console[/?]/.test(url);

class ConsoleNotBuiltProblem extends ProblemError {
  constructor() {
    super(503, 'console-not-built', 'Console not built', 'The console app is not built: run pnpm console:build.');
  }
}

async function fileAt(path: string): Promise<number | null> {
  try {
    const s = await stat(path);
    return s.isFile() ? s.size : null;
  } catch {
    return null;
  }
}

/**
 * The console on the gateway's origin (docs/console.md): the built app from CONSOLE_DIST_DIR at
 * /console (index.html for every page path, hashed assets cached for a year, gzip when asked),
 * the strict Content-Security-Policy on every /console answer, and the audit line of every change
 * a console session makes that its handler did not describe itself.
 */
export function installConsole(app: NestFastifyApplication, config: GatewayConfig): void {
  const fastify = app.getHttpAdapter().getInstance();
  const root = resolve(config.CONSOLE_DIST_DIR);
  const audit = app.get(ConsoleAuditRepository);

  fastify.addHook('onSend', async (request, reply, payload) => {
    if (isConsolePath(request.url)) {
      void reply.header('Content-Security-Policy', CONSOLE_CSP);
      void reply.header('X-Content-Type-Options', 'nosniff');
      void reply.header('Referrer-Policy', 'same-origin');
      void reply.header('X-Frame-Options', 'DENY');
    }
    return payload;
  });

  fastify.addHook('onResponse', async (request: ConsoleRequest, reply) => {
    const session = request.consoleSession;
    if (!session || request.consoleAudited || READS.has(request.method)) return;
    const params = Object.values((request.params ?? {}) as Record<string, string>);
    const route = request.routeOptions.url ?? 'unmatched';
    await audit
      .record(session.account.id, session.user, `${request.method} ${route}`, params.length ? params.join('/') : null, {
        status: reply.statusCode,
      })
      .catch((err: unknown) => logger.warn(`audit line not written: ${String(err)}`));
  });

  const serve = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const refuse = (err: Error) => {
      sendProblem(reply, request, err);
      return reply;
    };
    const rel = ((request.params as { '*'?: string })['*'] ?? '').replace(/^\/+/, '');
    if (rel === 'api' || rel.startsWith('api/')) return refuse(new NotFoundProblem('route'));
    const index = join(root, 'index.html');
    if ((await fileAt(index)) === null) return refuse(new ConsoleNotBuiltProblem());
    const wanted = resolve(root, rel);
    const inside = wanted.startsWith(root + sep);
    let path = index;
    let size = inside && rel ? await fileAt(wanted) : null;
    if (size !== null) path = wanted;
    else if (rel.startsWith('assets/')) return refuse(new NotFoundProblem('file'));
    else size = (await fileAt(index))!;
    const ext = extname(path).toLowerCase();
    void reply
      .type(TYPES[ext] ?? 'application/octet-stream')
      .header(
        'Cache-Control',
        path.startsWith(join(root, 'assets') + sep) ? 'public, max-age=31536000, immutable' : 'no-cache',
      )
      .header('Vary', 'Accept-Encoding');
    const gzip = COMPRESSIBLE.has(ext) && /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
    if (request.method === 'HEAD') return reply.send();
    if (gzip) {
      void reply.header('Content-Encoding', 'gzip');
      return reply.send(createReadStream(path).pipe(createGzip()));
    }
    void reply.header('Content-Length', size);
    return reply.send(createReadStream(path));
  };
  fastify.get('/console', serve);
  fastify.get('/console/*', serve);
}
