import { ProblemError } from '@app/server';

export const CONSOLE_ROLES = ['owner', 'manager', 'agent', 'viewer'] as const;
export type ConsoleRole = (typeof CONSOLE_ROLES)[number];
export const CONSOLE_LOCALES = ['en', 'ru'] as const;
export type ConsoleLocale = (typeof CONSOLE_LOCALES)[number];

/** Each role may do what the ones after it may, and more. */
const RANK: Record<ConsoleRole, number> = { owner: 3, manager: 2, agent: 1, viewer: 0 };

/** The conversation actions an agent may take besides reading (route patterns as Fastify names them). */
const AGENT_ACTIONS = new Set([
  'POST /v1/conversations/:id/messages',
  'POST /v1/conversations/:id/read',
  'PATCH /v1/conversations/:id',
]);

const READS = new Set(['GET', 'HEAD']);

/** The role a console user needs for a /v1 request: what docs/console.md's roles table says. */
export function roleNeededFor(method: string, route: string): ConsoleRole {
  if (route === '/v1/tokens' || route.startsWith('/v1/tokens/')) return 'owner';
  if (READS.has(method)) return 'viewer';
  if (AGENT_ACTIONS.has(`${method} ${route}`)) return 'agent';
  return 'manager';
}

/** 403 naming the role needed when `role` is below it. */
export function requireRole(role: ConsoleRole, needed: ConsoleRole): void {
  if (RANK[role] < RANK[needed]) {
    throw new ProblemError(
      403,
      'forbidden',
      'Access denied',
      `This needs the ${needed} role or higher; this console user is a ${role}.`,
      { required_role: needed },
    );
  }
}

/** A change through a console session without the session's X-CSRF-Token. */
export class CsrfProblem extends ProblemError {
  constructor() {
    super(403, 'csrf', 'CSRF token missing or wrong', "A change needs the session's csrf_token in X-CSRF-Token.");
  }
}
