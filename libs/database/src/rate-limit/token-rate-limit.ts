import type { ExecutionContext } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { hashToken } from '@app/auth';
import { TooManyRequestsProblem, UnauthorizedProblem } from '@app/server';
import { BucketState, RateLimitRepository } from './rate-limit.repository';

/** Where buckets live: PostgreSQL (RateLimitRepository, shared by replicas) or this process (LocalBuckets). */
export interface Buckets {
  take(key: string, perSecond: number, burst: number): Promise<BucketState>;
}

/** The IETF fields (draft-ietf-httpapi-ratelimit-headers, structured-field form) for one bucket state. */
export function rateLimitHeaders(
  state: { allowed: boolean; tokens: number },
  perSecond: number,
  burst: number,
): Record<string, string> {
  const remaining = Math.max(0, Math.floor(state.tokens));
  // Allowed: seconds until the bucket is full again; refused: seconds until the next request fits.
  const seconds = state.allowed
    ? Math.ceil(Math.max(0, burst - state.tokens) / perSecond)
    : Math.max(1, Math.ceil((1 - state.tokens) / perSecond));
  return {
    'RateLimit-Policy': `"default";q=${perSecond};w=1`,
    RateLimit: `"default";r=${remaining};t=${seconds}`,
  };
}

/**
 * One request against the bucket `key` (a hashed token, never the token): the RateLimit fields to
 * answer with, or a 429 problem with Retry-After and the same fields. `who` names the caller the
 * limit counts in the refusal.
 */
export async function takeRequest(
  buckets: Buckets,
  key: string,
  perSecond: number,
  burst: number,
  who = 'This token',
): Promise<Record<string, string>> {
  const state = await buckets.take(key, perSecond, burst);
  const headers = rateLimitHeaders(state, perSecond, burst);
  if (!state.allowed) {
    const wait = Math.max(1, Math.ceil((1 - state.tokens) / perSecond));
    throw new TooManyRequestsProblem(
      'rate-limited',
      'Too many requests',
      `${who} may make ${perSecond} requests per second; retry after ${wait} s.`,
      wait,
      headers,
    );
  }
  return headers;
}

/**
 * The body of a per-token rate-limit guard, put after the authentication guard: only a token that
 * authentication accepted (from the Authorization header) has a bucket, keyed by its hash, never a
 * bucket shared by unauthenticated callers. Sets the RateLimit fields on the answer; 429 past it.
 */
export async function limitAuthenticatedRequest(
  context: ExecutionContext,
  buckets: RateLimitRepository,
  limits: { RATE_LIMIT_PER_SECOND: number; RATE_LIMIT_BURST: number },
): Promise<true> {
  const http = context.switchToHttp();
  const request = http.getRequest<FastifyRequest & { user?: unknown }>();
  const token = request.user ? /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1] : undefined;
  if (!token) throw new UnauthorizedProblem('A valid bearer token is required.');
  const headers = await takeRequest(
    buckets,
    `token:${hashToken(token)}`,
    limits.RATE_LIMIT_PER_SECOND,
    limits.RATE_LIMIT_BURST,
  );
  const reply = http.getResponse<FastifyReply>();
  for (const [name, value] of Object.entries(headers)) void reply.header(name, value);
  return true;
}
