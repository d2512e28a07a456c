import { CanActivate, ExecutionContext, Injectable, Module } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isUuid } from '@app/contracts';
import { LocalBuckets, takeRequest } from '@app/database';
import { GatewayConfig } from '../config';

/** Buckets kept at most (client addresses and targets together): about 100 bytes each. */
const MAX_BUCKETS = 100_000;

/**
 * The target a request names, in one spelling, so that no other spelling of it gets a bucket of
 * its own. A connection id is a UUID, which the endpoints take in either case (they look the
 * connection up lower-cased, as every route of the gateway does): lower-cased here too. A spelling
 * that is no UUID names no connection (refused before any lookup): all such spellings are one
 * target. A pixel token is base64url, in which case is part of the token: taken as given (already
 * percent-decoded, as every parameter is).
 */
function targetOf(params: Record<string, string | undefined>): string {
  if (params.token !== undefined) return `token:${params.token}`;
  const id = params.connectionId ?? '';
  return isUuid(id) ? `connection:${id.toLowerCase()}` : 'connection:none';
}

/**
 * The request rate of the gateway's unauthenticated endpoints (the tracking pixel, course platform
 * events, bot updates), kept in this process: a bucket per client address and one per target (the
 * pixel's token, the connection a callback names), so neither one client nor one target can
 * make the gateway publish or look up without bound. Past either: 429 with Retry-After and the
 * RateLimit fields. In memory rather than PostgreSQL: a statement per unauthenticated request
 * would cost more than the request (docs/security.md).
 */
@Injectable()
export class PublicRateLimitGuard implements CanActivate {
  constructor(
    private readonly config: GatewayConfig,
    private readonly buckets: LocalBuckets,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest<{ Params: Record<string, string | undefined> }>>();
    const c = this.config;
    await takeRequest(
      this.buckets,
      `address:${request.ip}`,
      c.PUBLIC_RATE_LIMIT_PER_ADDRESS_PER_SECOND,
      c.PUBLIC_RATE_LIMIT_PER_ADDRESS_BURST,
      'This client address',
    );
    const headers = await takeRequest(
      this.buckets,
      `${request.routeOptions.url ?? ''}:${targetOf(request.params)}`,
      c.PUBLIC_RATE_LIMIT_PER_TARGET_PER_SECOND,
      c.PUBLIC_RATE_LIMIT_PER_TARGET_BURST,
      request.params.token !== undefined ? 'One pixel' : 'One connection',
    );
    const reply = http.getResponse<FastifyReply>();
    for (const [name, value] of Object.entries(headers)) void reply.header(name, value);
    return true;
  }
}

/** One set of buckets for every unauthenticated route of the gateway (each module that uses the guard gets its own guard). */
@Module({
  providers: [{ provide: LocalBuckets, useFactory: () => new LocalBuckets(MAX_BUCKETS) }, PublicRateLimitGuard],
  exports: [LocalBuckets, PublicRateLimitGuard],
})
export class PublicRateLimitModule {}
