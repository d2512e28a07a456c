import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { limitAuthenticatedRequest, RateLimitRepository, takeRequest } from '@app/database';
import { GatewayConfig } from '../config';
import { ConsoleRequest } from '../console/console-auth';

/**
 * The per-token request rate of account tokens, as the api's: RATE_LIMIT_PER_SECOND with a
 * RATE_LIMIT_BURST bucket, shared by every gateway replica through Postgres; every answer carries
 * the RateLimit fields, a refused request gets 429 with Retry-After. Put it after
 * `AccountTokenGuard`, so only an authenticated token has a bucket. A console session's requests
 * have a bucket of the same size per console user.
 */
@Injectable()
export class AccountRateLimitGuard implements CanActivate {
  constructor(
    private readonly buckets: RateLimitRepository,
    private readonly config: GatewayConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const session = context.switchToHttp().getRequest<ConsoleRequest>().consoleSession;
    if (!session) return limitAuthenticatedRequest(context, this.buckets, this.config);
    const headers = await takeRequest(
      this.buckets,
      `console:${session.user.id}`,
      this.config.RATE_LIMIT_PER_SECOND,
      this.config.RATE_LIMIT_BURST,
      'This console user',
    );
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    for (const [name, value] of Object.entries(headers)) void reply.header(name, value);
    return true;
  }
}
