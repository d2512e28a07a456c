import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { randomBytes } from 'node:crypto';
import { GraphErrorBody } from '@app/channels';

/** An error the emulated Graph API answers in Graph's own shape (not a problem document). */
export class GraphError extends Error {
  constructor(
    readonly httpStatus: number,
    readonly code: number,
    message: string,
    readonly details?: string,
    readonly subcode?: number,
    readonly type = 'OAuthException',
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'GraphError';
  }

  toBody(): GraphErrorBody {
    return {
      error: {
        message: this.message,
        type: this.type,
        code: this.code,
        ...(this.subcode !== undefined ? { error_subcode: this.subcode } : {}),
        ...(this.details ? { error_data: { messaging_product: 'whatsapp', details: this.details } } : {}),
        fbtrace_id: randomBytes(8).toString('base64url'),
      },
    };
  }
}

/** The Graph errors the sandbox produces, with Graph's codes and wording. */
export const graphErrors = {
  invalidToken: () =>
    new GraphError(
      401,
      190,
      'Invalid OAuth access token - Cannot parse access token',
      undefined,
      undefined,
      'OAuthException',
    ),
  unknownPath: (path: string) =>
    new GraphError(400, 100, `Unknown path components: ${path}`, undefined, undefined, 'OAuthException'),
  invalidParameter: (details: string, subcode?: number) =>
    new GraphError(400, 100, '(#100) Invalid parameter', details, subcode),
  missingParameter: (details: string) =>
    new GraphError(400, 131008, '(#131008) Required parameter is missing', details),
  invalidValue: (details: string) => new GraphError(400, 131009, '(#131009) Parameter value is not valid', details),
  undeliverable: () =>
    new GraphError(
      400,
      131026,
      '(#131026) Message Undeliverable.',
      'Message Undeliverable: the recipient cannot receive WhatsApp messages.',
    ),
  parameterCount: (details: string) =>
    new GraphError(400, 132000, '(#132000) Number of parameters does not match the expected number of params', details),
  templateMissing: (details: string) =>
    new GraphError(400, 132001, '(#132001) Template name does not exist in the translation', details),
  parameterFormat: (details: string) =>
    new GraphError(400, 132012, '(#132012) Parameter format does not match format in the created template', details),
  templatePaused: (details: string) => new GraphError(400, 132015, '(#132015) Template is Paused', details),
  templateDisabled: (details: string) => new GraphError(400, 132016, '(#132016) Template is Disabled', details),
  rateLimited: (retryAfterSeconds: number) =>
    new GraphError(
      429,
      130429,
      '(#130429) Rate limit hit',
      'Cloud API message throughput has been reached.',
      undefined,
      'OAuthException',
      {
        'Retry-After': String(retryAfterSeconds),
      },
    ),
  unavailable: () =>
    new GraphError(500, 131000, '(#131000) Something went wrong', 'Something went wrong. Please try again later.'),
  objectMissing: (id: string) =>
    new GraphError(
      400,
      100,
      `Unsupported post request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
      undefined,
      33,
      'GraphMethodException',
    ),
};

/** Answers GraphError in Graph's shape; everything else falls through to the problem filter. */
@Catch(GraphError)
export class GraphErrorFilter implements ExceptionFilter {
  catch(err: GraphError, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    void reply
      .status(err.httpStatus)
      .headers(
        err.httpStatus === 401
          ? { ...err.headers, 'WWW-Authenticate': 'OAuth "Facebook Platform" "invalid_token"' }
          : err.headers,
      )
      .type('application/json')
      .send(err.toBody());
  }
}
