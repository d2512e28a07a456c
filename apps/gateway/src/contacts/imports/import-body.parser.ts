import { Injectable, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { mediaTypeOf, problemForStatus } from '@app/server';
import type { ImportFormat } from './import-rows';

/** The path whose body is a contact import file. */
export const IMPORTS_PATH = '/v1/contacts/imports';

const FORMATS: Record<string, ImportFormat> = {
  'text/csv': 'csv',
  'application/x-ndjson': 'ndjson',
  'application/ndjson': 'ndjson',
};

/** The import format a Content-Type names, or null. */
export function importFormatOf(contentType: string | undefined): ImportFormat | null {
  return FORMATS[mediaTypeOf(contentType)] ?? null;
}

/**
 * CSV and NDJSON bodies reach the import endpoint as the request stream itself (the import writes
 * it to disk as it arrives, within its own size limit); on any other route they are 415. Registered
 * on the HTTP server as the module starts, before it listens.
 */
@Injectable()
export class ImportBodyParser implements OnModuleInit {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onModuleInit(): void {
    // A context without an HTTP server (a CLI command, a worker) takes no import bodies.
    const fastify = this.adapterHost.httpAdapter?.getInstance<FastifyInstance>();
    fastify?.addContentTypeParser(Object.keys(FORMATS), (request, payload, done) => {
      const path = (request.url ?? '').split('?')[0];
      if (request.method === 'POST' && path === IMPORTS_PATH) done(null, payload);
      else done(problemForStatus(415, 'This route does not take that content type.'), undefined);
    });
  }
}
