import { UnauthorizedProblem } from '@app/server';

interface TokenCarrier {
  headers: { authorization?: string };
  query?: unknown;
  body?: unknown;
}

const carries = (v: unknown): boolean => typeof v === 'object' && v !== null && 'access_token' in v;

/** The token of `Authorization: Bearer <token>`, the only place the api takes one from. */
export function bearerToken(request: TokenCarrier): string | null {
  return /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1] ?? null;
}

/**
 * A token in the query string ends up in access logs, proxies and browser history, and one in a
 * body is easy to send by mistake; passport-http-bearer would accept both. Refused before it runs.
 */
export function refuseTokenOutsideHeader(request: TokenCarrier): void {
  if (carries(request.query) || carries(request.body)) {
    throw new UnauthorizedProblem('Send the token in the Authorization header only, never as access_token.');
  }
}
