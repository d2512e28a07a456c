import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { SandboxConfig } from '../config';
import { graphErrors } from './graph-error';
import { PhoneNumbersService } from './phone-numbers.service';
import { SignupService } from './signup.service';

/**
 * Graph accepts the token as a bearer header or an `access_token` query parameter: the platform's
 * system token reaches everything, a business token from an embedded signup only its WABA.
 */
@Injectable()
export class GraphAuthGuard implements CanActivate {
  constructor(
    private readonly config: SandboxConfig,
    private readonly signups: SignupService,
    private readonly numbers: PhoneNumbersService,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<FastifyRequest>();
    const version = (req.params as Record<string, string> | undefined)?.version ?? '';
    if (!/^v\d+\.\d+$/.test(version)) throw graphErrors.unknownPath(req.url.split('?')[0]);
    const header = req.headers.authorization;
    const fromHeader =
      typeof header === 'string' && /^Bearer\s+/i.test(header) ? header.replace(/^Bearer\s+/i, '') : null;
    const fromQuery = (req.query as Record<string, unknown> | undefined)?.access_token;
    const token = fromHeader ?? (typeof fromQuery === 'string' ? fromQuery : null);
    if (token === this.config.WHATSAPP_ACCESS_TOKEN) return true;
    const grant = token ? this.signups.grantOf(token) : undefined;
    if (!grant) throw graphErrors.invalidToken();
    for (const id of Object.values(req.params as Record<string, string>)) {
      if (id !== version && id !== grant.waba_id && this.numbers.wabaOf(id) !== grant.waba_id) {
        throw graphErrors.objectMissing(id);
      }
    }
    return true;
  }
}
