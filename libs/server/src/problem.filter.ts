import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { RpcProblem } from '@app/contracts';
import { RPC_RETRY_AFTER_SECONDS, RpcProblemError } from '@app/messaging';
import { FieldError, ProblemBody, ProblemError, problemForStatus, ServiceUnavailableProblem } from './problem';
import { pathOf } from './logging';

const logger = new Logger('Problems');

interface FrameworkError {
  statusCode?: number;
  status?: number;
  code?: string;
  message?: string;
  driverError?: { code?: string };
}

/**
 * Fixed details for Fastify's own errors: their messages may quote the request URL (which can
 * carry an onboarding link's token), so none of them is passed on.
 */
const FRAMEWORK_DETAILS: Record<string, string> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'The body is not valid JSON.',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'The body is not valid JSON.',
  FST_ERR_CTP_BODY_TOO_LARGE: 'The body is larger than this route takes (256 KiB unless documented otherwise).',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Send the body as application/json.',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'Content-Length does not match the body.',
  FST_ERR_BAD_URL: 'The URL is not valid (bad percent-encoding).',
  FST_ERR_MAX_PARAM_LENGTH: 'A path segment is too long.',
};

/** Errors whose answer must not name the request path (it is what was wrong). */
const URL_ERRORS = new Set(['FST_ERR_BAD_URL', 'FST_ERR_MAX_PARAM_LENGTH']);

const STATUS_DETAILS: Record<number, string> = {
  404: 'No such route.',
  405: 'The route does not take this method.',
  413: FRAMEWORK_DETAILS.FST_ERR_CTP_BODY_TOO_LARGE,
  415: FRAMEWORK_DETAILS.FST_ERR_CTP_INVALID_MEDIA_TYPE,
};

/**
 * Errors that mean PostgreSQL (or a socket to it) is unavailable: a refused or dropped connection,
 * the server shutting down or starting up, too many connections. Not the client's fault: 503.
 */
const OUTAGE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  '53300',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
]);
const OUTAGE_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection is not established/i;

/** True when `err` says a dependency (the database) could not be reached, not that the request was bad. */
export function isDependencyOutage(err: unknown): boolean {
  const e = err as FrameworkError | undefined;
  if (!e || typeof e !== 'object') return false;
  const code = e.driverError?.code ?? e.code;
  if (typeof code === 'string' && OUTAGE_CODES.has(code)) return true;
  return typeof e.message === 'string' && OUTAGE_MESSAGES.test(e.message);
}

/** PostgreSQL's "data exception" class: a value it cannot store or convert, which came from the request. */
function isDataException(err: unknown): boolean {
  const code = (err as FrameworkError | undefined)?.driverError?.code;
  return typeof code === 'string' && code.startsWith('22');
}

/** Maps anything thrown (domain, Nest, Fastify) to a problem; unexpected errors become a bare 500. */
export function toProblem(err: unknown): ProblemError {
  if (err instanceof ProblemError) return err;
  if (err instanceof RpcProblemError) {
    // Another service's answer over request/reply: the same problem, told to this caller.
    const p = err.problem;
    return new ProblemError(
      p.status,
      p.slug,
      p.title,
      p.detail,
      { ...(p.extensions ?? {}), ...(p.errors ? { errors: p.errors } : {}) },
      p.retry_after !== undefined
        ? { 'Retry-After': String(p.retry_after) }
        : p.status === 503
          ? { 'Retry-After': String(RPC_RETRY_AFTER_SECONDS) }
          : {},
    );
  }
  if (err instanceof HttpException) {
    // Nest's own (an unknown route) or Fastify's, which Nest wraps without their code: the
    // messages may quote the URL, so only the status (and whether the body was bad JSON) is kept.
    const status = err.getStatus();
    if (status === 400 && /JSON/.test(err.message)) {
      return problemForStatus(400, FRAMEWORK_DETAILS.FST_ERR_CTP_INVALID_JSON_BODY);
    }
    return problemForStatus(status, STATUS_DETAILS[status]);
  }
  const fe = err as FrameworkError;
  const status = fe?.statusCode ?? fe?.status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    // The JSON parser's own error is a SyntaxError with a status and no code.
    if (err instanceof SyntaxError) return problemForStatus(400, FRAMEWORK_DETAILS.FST_ERR_CTP_INVALID_JSON_BODY);
    return problemForStatus(status, (fe.code && FRAMEWORK_DETAILS[fe.code]) || STATUS_DETAILS[status]);
  }
  if (err instanceof SyntaxError) return problemForStatus(400, FRAMEWORK_DETAILS.FST_ERR_CTP_INVALID_JSON_BODY);
  if (isDependencyOutage(err)) {
    return new ServiceUnavailableProblem('The service cannot reach its database right now; retry shortly.');
  }
  if (isDataException(err)) return problemForStatus(400, 'A value of the request cannot be stored.');
  return problemForStatus(500, 'An unexpected error occurred.');
}

/** A ProblemError as request/reply data, for a responder to answer with (see rpcAnswer). */
export function rpcProblemOf(err: unknown): RpcProblem | undefined {
  if (!(err instanceof ProblemError)) return undefined;
  const { errors, ...extensions } = err.extensions as { errors?: FieldError[] } & Record<string, unknown>;
  const retryAfter = Number(err.headers['Retry-After']);
  return {
    status: err.status,
    slug: err.slug,
    title: err.title,
    ...(err.detail ? { detail: err.detail } : {}),
    ...(errors ? { errors } : {}),
    ...(Object.keys(extensions).length ? { extensions } : {}),
    ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { retry_after: retryAfter } : {}),
  };
}

/**
 * The request path, for `instance` (told only to the caller, who sent it): never the query (it can
 * hold a link token), never an absurd length.
 */
function requestPath(request: FastifyRequest | undefined): string | undefined {
  const path = pathOf(request?.url);
  return path && path.length <= 512 ? path : undefined;
}

export function sendProblem(reply: FastifyReply, request: FastifyRequest | undefined, err: unknown): void {
  const problem = toProblem(err);
  const path = URL_ERRORS.has((err as FrameworkError)?.code ?? '') ? undefined : requestPath(request);
  // A ProblemError, or another service's problem over request/reply, is a deliberate answer.
  const deliberate = err instanceof ProblemError || err instanceof RpcProblemError;
  // No path in these lines: the request's logger adds its path as the service's logs write it
  // (loggingModule's hidePath), where the path as sent can carry a credential or a tenant's data.
  if (problem.status >= 500 && problem.status !== 503 && !deliberate) {
    logger.error({ err, reqId: request?.id }, 'unhandled error');
  } else if (problem.status >= 500 || (problem.status === 400 && isDataException(err))) {
    // A deliberate 5xx (a dependency is down) or a value the database refused: a warning, not a stack.
    logger.warn(
      { reqId: request?.id, status: problem.status, detail: problem.detail, err: String(err) },
      problem.title,
    );
  }
  const body: ProblemBody = problem.toBody(path);
  void reply.status(problem.status).headers(problem.headers).type('application/problem+json').send(body);
}

/**
 * Answers a request Node's HTTP parser refused before Fastify saw it (bad header bytes, headers
 * over the size limit, a request that took too long), as a problem like every other error.
 */
export function sendClientErrorProblem(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const detail =
    status === 431
      ? 'The request line and headers are larger than the server accepts.'
      : status === 408
        ? 'The request took too long to arrive.'
        : 'The request is not valid HTTP (for example a header with forbidden bytes).';
  const body = JSON.stringify(problemForStatus(status, detail).toBody());
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/problem+json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/** The one exception filter: every error leaves as RFC 9457 application/problem+json. */
@Catch()
export class ProblemFilter implements ExceptionFilter {
  catch(err: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') throw err;
    const ctx = host.switchToHttp();
    sendProblem(ctx.getResponse<FastifyReply>(), ctx.getRequest<FastifyRequest>(), err);
  }
}
