/** A field-level validation message inside a problem body. */
export interface FieldError {
  field: string;
  message: string;
}

/** RFC 9457 problem details. */
export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail?: string;
  instance?: string;
  errors?: FieldError[];
  [extension: string]: unknown;
}

/** Problem type URIs are relative references documented in docs/errors.md. */
export const problemType = (slug: string): string => `/problems/${slug}`;

/**
 * A typed domain error: services throw these, one filter turns them into problem+json. `headers`
 * are added to the response (Retry-After, WWW-Authenticate, ...).
 */
export class ProblemError extends Error {
  constructor(
    readonly status: number,
    readonly slug: string,
    readonly title: string,
    readonly detail?: string,
    readonly extensions: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(detail ?? title);
    this.name = 'ProblemError';
  }

  toBody(instance?: string): ProblemBody {
    return {
      type: problemType(this.slug),
      title: this.title,
      status: this.status,
      ...(this.detail ? { detail: this.detail } : {}),
      ...(instance ? { instance } : {}),
      ...this.extensions,
    };
  }
}

export class ValidationProblem extends ProblemError {
  constructor(errors: FieldError[], detail = 'The request is not valid.') {
    super(400, 'validation-error', 'Invalid request', detail, { errors });
  }
}

export class UnauthorizedProblem extends ProblemError {
  constructor(detail = 'A valid bearer token is required.') {
    super(401, 'unauthorized', 'Authentication required', detail, {}, { 'WWW-Authenticate': 'Bearer' });
  }
}

export class ForbiddenProblem extends ProblemError {
  constructor(detail = 'The token may not access this resource.') {
    super(403, 'forbidden', 'Access denied', detail);
  }
}

export class NotFoundProblem extends ProblemError {
  constructor(what = 'resource') {
    super(404, 'not-found', 'Not found', `The ${what} does not exist.`);
  }
}

export class ConflictProblem extends ProblemError {
  constructor(slug: string, title: string, detail?: string) {
    super(409, slug, title, detail);
  }
}

export class UnprocessableProblem extends ProblemError {
  constructor(slug: string, title: string, detail?: string, extensions: Record<string, unknown> = {}) {
    super(422, slug, title, detail, extensions);
  }
}

export class TooManyRequestsProblem extends ProblemError {
  constructor(
    slug: string,
    title: string,
    detail: string,
    retryAfterSeconds: number,
    headers: Record<string, string> = {},
  ) {
    super(
      429,
      slug,
      title,
      detail,
      {},
      { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))), ...headers },
    );
  }
}

export class ServiceUnavailableProblem extends ProblemError {
  constructor(detail: string, retryAfterSeconds = 5) {
    super(503, 'service-unavailable', 'Service unavailable', detail, {}, { 'Retry-After': String(retryAfterSeconds) });
  }
}

const TITLES: Record<number, string> = {
  400: 'Invalid request',
  401: 'Authentication required',
  403: 'Access denied',
  404: 'Not found',
  405: 'Method not allowed',
  406: 'Not acceptable',
  408: 'Request timeout',
  409: 'Conflict',
  411: 'Length required',
  413: 'Payload too large',
  414: 'URI too long',
  415: 'Unsupported media type',
  422: 'Unprocessable request',
  429: 'Too many requests',
  431: 'Request header fields too large',
  500: 'Internal server error',
  502: 'Bad gateway',
  503: 'Service unavailable',
  504: 'Gateway timeout',
};

const SLUGS: Record<number, string> = {
  400: 'bad-request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not-found',
  405: 'method-not-allowed',
  406: 'not-acceptable',
  408: 'request-timeout',
  409: 'conflict',
  411: 'length-required',
  413: 'payload-too-large',
  414: 'uri-too-long',
  415: 'unsupported-media-type',
  422: 'unprocessable',
  429: 'too-many-requests',
  431: 'request-header-fields-too-large',
  500: 'internal',
  502: 'bad-gateway',
  503: 'service-unavailable',
  504: 'gateway-timeout',
};

/** A problem for a bare status code (framework errors, 404 routes, parser errors). */
export function problemForStatus(status: number, detail?: string): ProblemError {
  return new ProblemError(status, SLUGS[status] ?? `http-${status}`, TITLES[status] ?? 'Error', detail);
}
