import { Injectable, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';

/**
 * Lets `POST /v1/media` read a multipart/form-data body as a stream of parts (@fastify/multipart):
 * the file part is streamed to the media store as it arrives, never whole in memory. Registered
 * on the HTTP server as the module starts, before it listens; the limits are set per request.
 */
@Injectable()
export class MediaUploadParser implements OnModuleInit {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onModuleInit(): void {
    // A context without an HTTP server (a CLI command, a worker) takes no uploads.
    const fastify = this.adapterHost.httpAdapter?.getInstance<FastifyInstance>();
    if (!fastify || fastify.hasContentTypeParser('multipart/form-data')) return;
    void fastify.register(multipart);
  }
}
