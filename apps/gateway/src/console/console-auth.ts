import { Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { constantTimeEqual } from '@app/auth';
import { UnauthorizedProblem } from '@app/server';
import { GatewayConfig } from '../config';
import { ConsoleRole, CsrfProblem, requireRole } from './console-roles';
import { ConsoleSession, ConsoleSessionsRepository, SessionLimits } from './console-sessions.repository';

export const SESSION_COOKIE = 'console_session';
export const CSRF_HEADER = 'x-csrf-token';
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;
const READS = new Set(['GET', 'HEAD']);

/** A request as the console's guards leave it: the session it came with, and whether its change was audited. */
export type ConsoleRequest = FastifyRequest & { consoleSession?: ConsoleSession; consoleAudited?: boolean };

/** The session id in a request's Cookie header, when it has a well-formed one. */
function sessionIdOf(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * Console sessions at the edge: reads the cookie, checks the session, its CSRF token on every
 * change and the role a request needs; sets and clears the cookie (HttpOnly, SameSite=Strict,
 * Path=/, Secure unless CONSOLE_COOKIE_SECURE says otherwise).
 */
@Injectable()
export class ConsoleAuth {
  constructor(
    private readonly sessions: ConsoleSessionsRepository,
    private readonly config: GatewayConfig,
  ) {}

  get limits(): SessionLimits {
    return { idleS: this.config.CONSOLE_SESSION_IDLE_S, maxS: this.config.CONSOLE_SESSION_MAX_S };
  }

  /** Whether a request came with a console session cookie (live or not). */
  hasCookie(request: FastifyRequest): boolean {
    return sessionIdOf(request) !== undefined;
  }

  /** The request's live session, or null. */
  async sessionOf(request: ConsoleRequest): Promise<ConsoleSession | null> {
    if (request.consoleSession) return request.consoleSession;
    const id = sessionIdOf(request);
    if (!id || !SESSION_ID.test(id)) return null;
    const session = await this.sessions.find(id, this.limits);
    if (session) request.consoleSession = session;
    return session;
  }

  /**
   * The request's session when it may do what it asks: 401 without a live session, 403 csrf for a
   * change without the session's X-CSRF-Token, 403 forbidden below the role `needed`.
   */
  async authorize(request: ConsoleRequest, needed: ConsoleRole): Promise<ConsoleSession> {
    const session = await this.sessionOf(request);
    if (!session) throw new UnauthorizedProblem('A live console session or a gateway account token is required.');
    if (!READS.has(request.method)) {
      const sent = request.headers[CSRF_HEADER];
      if (typeof sent !== 'string' || !constantTimeEqual(sent, session.csrfToken)) throw new CsrfProblem();
    }
    requireRole(session.user.role, needed);
    return session;
  }

  setCookie(reply: FastifyReply, id: string): void {
    void reply.header('Set-Cookie', this.cookie(id, this.config.CONSOLE_SESSION_MAX_S));
  }

  clearCookie(reply: FastifyReply): void {
    void reply.header('Set-Cookie', this.cookie('', 0));
  }

  private cookie(value: string, maxAgeS: number): string {
    const secure = this.config.consoleCookieSecure ? '; Secure' : '';
    return `${SESSION_COOKIE}=${value}; Path=/; Max-Age=${maxAgeS}; HttpOnly; SameSite=Strict${secure}`;
  }
}
