import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { hashToken } from '@app/auth';
import { TooManyRequestsProblem, UnauthorizedProblem } from '@app/server';
import { bearerToken } from '../auth';
import { ApiConfig } from '../config';
import { RateLimitRepository } from './rate-limit.repository';

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
 * Per-token request rate, shared by every api replica through Postgres. Put it after the
 * authentication guard: `@UseGuards(SystemTokenGuard, RateLimitGuard)`. Every answer carries the
 * RateLimit fields; a refused request gets 429 with Retry-After.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(
    private readonly buckets: RateLimitRepository,
    private readonly config: ApiConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    // The token authentication accepted (header only): never a bucket shared by unauthenticated callers.
    const token = (request as FastifyRequest & { user?: unknown }).user ? bearerToken(request) : null;
    if (!token) throw new UnauthorizedProblem('A valid bearer token is required.');
    const perSecond = this.config.RATE_LIMIT_PER_SECOND;
    const burst = this.config.RATE_LIMIT_BURST;
    const state = await this.buckets.take(`token:${hashToken(token)}`, perSecond, burst);
    const headers = rateLimitHeaders(state, perSecond, burst);
    if (!state.allowed) {
      const wait = Math.max(1, Math.ceil((1 - state.tokens) / perSecond));
      throw new TooManyRequestsProblem(
        'rate-limited',
        'Too many requests',
        `This token may make ${perSecond} requests per second; retry after ${wait} s.`,
        wait,
        headers,
      );
    }
    for (const [name, value] of Object.entries(headers)) void reply.header(name, value);
    return true;
  }
}
