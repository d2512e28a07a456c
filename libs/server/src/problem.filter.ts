import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ProblemBody, ProblemError, problemForStatus, ValidationProblem } from './problem';

const logger = new Logger('Problems');

interface FrameworkError {
  statusCode?: number;
  status?: number;
  code?: string;
  message?: string;
}

/** Maps anything thrown (domain, Nest, Fastify) to a problem; unexpected errors become a bare 500. */
export function toProblem(err: unknown): ProblemError {
  if (err instanceof ProblemError) return err;
  if (err instanceof HttpException) {
    const status = err.getStatus();
    const res = err.getResponse();
    const message =
      typeof res === 'object' && res && 'message' in res ? (res as { message: unknown }).message : err.message;
    if (status === 400 && Array.isArray(message)) {
      return new ValidationProblem(message.map((m) => ({ field: String(m).split(' ')[0], message: String(m) })));
    }
    return problemForStatus(status, typeof message === 'string' ? message : undefined);
  }
  const fe = err as FrameworkError;
  const status = fe?.statusCode ?? fe?.status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    switch (fe.code) {
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return problemForStatus(400, 'The body is not valid JSON.');
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return problemForStatus(413, 'The body is larger than 1 MiB.');
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return problemForStatus(415, 'Send the body as application/json.');
      default:
        return problemForStatus(status, status === 404 ? 'No such route.' : (fe.message ?? undefined));
    }
  }
  if (err instanceof SyntaxError) return problemForStatus(400, 'The body is not valid JSON.');
  return problemForStatus(500, 'An unexpected error occurred.');
}

export function sendProblem(reply: FastifyReply, request: FastifyRequest | undefined, err: unknown): void {
  const problem = toProblem(err);
  if (!(err instanceof ProblemError) && problem.status >= 500) {
    logger.error({ err, reqId: request?.id, url: request?.url }, 'unhandled error');
  } else if (problem.status >= 500) {
    // A deliberate 5xx (a dependency is down): worth a warning, not a stack.
    logger.warn(
      { reqId: request?.id, url: request?.url, status: problem.status, detail: problem.detail },
      problem.title,
    );
  }
  const body: ProblemBody = problem.toBody(request?.url?.split('?')[0]);
  void reply.status(problem.status).headers(problem.headers).type('application/problem+json').send(body);
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
