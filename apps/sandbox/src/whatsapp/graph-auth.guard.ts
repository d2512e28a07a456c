import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { SandboxConfig } from '../config';
import { graphErrors } from './graph-error';

/** Graph accepts the token as a bearer header or an `access_token` query parameter. */
@Injectable()
export class GraphAuthGuard implements CanActivate {
  constructor(private readonly config: SandboxConfig) {}

  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<FastifyRequest>();
    const version = (req.params as Record<string, string> | undefined)?.version ?? '';
    if (!/^v\d+\.\d+$/.test(version)) throw graphErrors.unknownPath(req.url.split('?')[0]);
    const header = req.headers.authorization;
    const fromHeader =
      typeof header === 'string' && /^Bearer\s+/i.test(header) ? header.replace(/^Bearer\s+/i, '') : null;
    const fromQuery = (req.query as Record<string, unknown> | undefined)?.access_token;
    const token = fromHeader ?? (typeof fromQuery === 'string' ? fromQuery : null);
    if (token !== this.config.WHATSAPP_ACCESS_TOKEN) throw graphErrors.invalidToken();
    return true;
  }
}
