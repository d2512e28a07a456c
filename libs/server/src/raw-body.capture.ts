import { Injectable, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Readable, Transform } from 'node:stream';

/** Route config (`@RouteConfig(RAW_BODY)`) of the routes whose exact body bytes are kept. */
export const RAW_BODY = { rawBody: true } as const;

const RAW = Symbol('rawBody');
type WithRaw = FastifyRequest & { [RAW]?: Buffer[] };

/** The bytes of the body as received, on a route marked with RAW_BODY; undefined elsewhere. */
export function rawBodyOf(req: FastifyRequest): Buffer | undefined {
  const chunks = (req as WithRaw)[RAW];
  return chunks ? Buffer.concat(chunks) : undefined;
}

/**
 * Keeps a copy of the body bytes on the routes marked RAW_BODY, for signatures computed over the
 * exact bytes (re-serialized JSON would not match). It taps the stream before the usual parser,
 * so the JSON parsing, body limit and errors of every route stay as they are.
 */
@Injectable()
export class RawBodyCapture implements OnModuleInit {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter?.getInstance<FastifyInstance>();
    if (!fastify) return;
    fastify.addHook('preParsing', async (request, _reply, payload) => {
      if ((request.routeOptions.config as { rawBody?: boolean } | undefined)?.rawBody !== true) return payload;
      const chunks: Buffer[] = [];
      (request as WithRaw)[RAW] = chunks;
      const tap = new Transform({
        transform(chunk: Buffer, _enc, done) {
          chunks.push(chunk);
          done(null, chunk);
        },
      });
      // Errors (an aborted upload) reach the parser through the tap. `pipe` rather than `pipeline`:
      // the latter makes an AbortController per body and aborts it once done (building an
      // AbortError each time), a twentieth of a busy callback receiver's CPU.
      const source = payload as Readable;
      source.once('error', (err) => tap.destroy(err));
      source.pipe(tap);
      return tap;
    });
  }
}
