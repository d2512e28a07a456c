import { Injectable, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ProblemError } from '@app/server';
import { COURSE_BODY_LIMIT_BYTES, parseFormBody } from './course-body';

/** Route config (`@RouteConfig(COURSE_BODY)`) of the routes that take course platforms' callbacks. */
export const COURSE_BODY = { courseBody: true } as const;

const FORM = 'application/x-www-form-urlencoded';

const isCourseRoute = (request: FastifyRequest) =>
  (request.routeOptions.config as { courseBody?: boolean } | undefined)?.courseBody === true;

/** 413 for a course callback over 64 KiB (a status Fastify's parsers keep when the stream fails with it). */
class CourseBodyTooLargeProblem extends ProblemError {
  readonly statusCode = 413;
  constructor() {
    super(413, 'payload-too-large', 'Payload too large', 'The body is larger than 64 KiB.');
  }
}

/** 415 for a form body on any route but the course callbacks (they alone take forms). */
class FormNotAcceptedProblem extends ProblemError {
  readonly statusCode = 415;
  constructor() {
    super(415, 'unsupported-media-type', 'Unsupported media type', 'Send the body as application/json.');
  }
}

/**
 * The course callbacks' bodies: form-encoded ones parsed into nested objects, and every body (JSON
 * or form) held to 64 KiB, by its Content-Length before reading and by counting while reading.
 * Other routes keep JSON only.
 */
@Injectable()
export class CourseBodyParser implements OnModuleInit {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter?.getInstance<FastifyInstance>();
    if (!fastify) return;
    // Replaces the framework's form parser: other routes take JSON only (415 for a form).
    if (fastify.hasContentTypeParser(FORM)) fastify.removeContentTypeParser(FORM);
    fastify.addContentTypeParser(FORM, { parseAs: 'string', bodyLimit: COURSE_BODY_LIMIT_BYTES }, (req, body, done) => {
      if (!isCourseRoute(req)) return done(new FormNotAcceptedProblem(), undefined);
      done(null, parseFormBody(body as string));
    });
    fastify.addHook('preParsing', async (request, _reply, payload) => {
      if (!isCourseRoute(request)) return payload;
      const declared = Number(request.headers['content-length']);
      if (Number.isFinite(declared) && declared > COURSE_BODY_LIMIT_BYTES) throw new CourseBodyTooLargeProblem();
      let seen = 0;
      const counter = new Transform({
        transform(chunk: Buffer, _enc, done) {
          seen += chunk.length;
          done(seen > COURSE_BODY_LIMIT_BYTES ? new CourseBodyTooLargeProblem() : null, chunk);
        },
      });
      pipeline(payload as Readable, counter).catch(() => undefined);
      return counter;
    });
  }
}
