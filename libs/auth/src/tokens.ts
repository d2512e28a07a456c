import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Token kinds: a system user's token opens the API; a real user's token is valid but refused there. */
export const TOKEN_KINDS = ['system', 'user'] as const;
export type TokenKind = (typeof TOKEN_KINDS)[number];

/** Opaque random token, shown once. The prefix tells operators what a leaked string is. */
export function generateToken(prefix: 'sk' | 'uk' | 'gk'): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

/** Tokens are stored only as their SHA-256 (hex). */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Compares two secrets (tokens, signatures, verify tokens) in constant time. */
export function constantTimeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** A bearer token as sent: printable, bounded, no spaces. */
export function isWellFormedToken(token: string): boolean {
  return /^[A-Za-z0-9_\-.~+/]{16,256}=*$/.test(token);
}
