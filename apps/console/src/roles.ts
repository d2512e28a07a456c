import type { Role } from './api/console';

/** What a console role may do, as the gateway enforces it (the console hides what would be refused). */
export const can = {
  /** Changes on /v1 other than API tokens (campaigns, contacts, templates, webhooks, ...). */
  manage: (role: Role) => role === 'owner' || role === 'manager',
  /** Replying to, assigning and closing conversations. */
  converse: (role: Role) => role !== 'viewer',
  tokens: (role: Role) => role === 'owner',
  users: (role: Role) => role === 'owner',
  audit: (role: Role) => role === 'owner' || role === 'manager',
};
