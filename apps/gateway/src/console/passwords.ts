import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * Console passwords, hashed with scrypt (memory-hard): N = 2^15, r = 8, p = 1 (32 MiB and tens of
 * milliseconds per hash), a 16-byte random salt, a 32-byte key. Stored as
 * `scrypt$<log2 N>$<r>$<p>$<salt>$<key>` (base64url), so stronger settings can follow without
 * invalidating older hashes.
 */
const LOG_N = 15;
const R = 8;
const P = 1;
const KEY_BYTES = 32;
/** scrypt needs 128 * N * r bytes; Node's default cap is exactly that, so give it room. */
const MAX_MEM = 64 * 1024 * 1024;

export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 200;

const derive = (password: string, salt: Buffer, logN: number, r: number, p: number): Promise<Buffer> =>
  new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, KEY_BYTES, { N: 2 ** logN, r, p, maxmem: MAX_MEM }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, LOG_N, R, P);
  return ['scrypt', LOG_N, R, P, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** A hash no password matches, compared against when the email is unknown (the same work either way). */
const DUMMY_HASH = `scrypt$${LOG_N}$${R}$${P}$${randomBytes(16).toString('base64url')}$${randomBytes(KEY_BYTES).toString('base64url')}`;

/** Whether `password` matches `stored`, in constant time; with no stored hash, the same work and false. */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const [scheme, logN, r, p, salt, key] = (stored ?? DUMMY_HASH).split('$');
  if (scheme !== 'scrypt' || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64url');
  const got = await derive(password, Buffer.from(salt, 'base64url'), Number(logN), Number(r), Number(p));
  return got.length === expected.length && timingSafeEqual(got, expected) && stored !== null;
}
