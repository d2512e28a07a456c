import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-http-bearer';
import { isWellFormedToken } from '@app/auth';
import { ServiceUnavailableProblem } from '@app/server';
import { UsersRepository } from '../users/users.repository';
import { AuthenticatedUser } from './authenticated-user';

/** Resolves `Authorization: Bearer <token>` to the token's user (unknown or revoked: none). */
@Injectable()
export class BearerStrategy extends PassportStrategy(Strategy, 'bearer') {
  constructor(private readonly users: UsersRepository) {
    super();
  }

  async validate(token: string): Promise<AuthenticatedUser | false> {
    if (!isWellFormedToken(token)) return false;
    let user;
    try {
      user = await this.users.findByToken(token);
    } catch {
      // The lookup failed (the database is unreachable): the token may well be valid, so this is
      // the service's outage, not the client's fault.
      throw new ServiceUnavailableProblem('Tokens cannot be checked right now; retry shortly.', 2);
    }
    return user ? { id: user.id, name: user.name, kind: user.kind, currency: user.currency } : false;
  }
}
