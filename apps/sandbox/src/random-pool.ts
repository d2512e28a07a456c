import { randomBytes } from 'node:crypto';

/** Random bytes drawn from the kernel at a time: one call per POOL_BYTES instead of one per id. */
const POOL_BYTES = 8192;
let pool = Buffer.alloc(0);
let at = 0;

/**
 * `n` random bytes (n at most POOL_BYTES), cut from a pool filled 8 KiB at a time: the emulator
 * draws an id or two per message, and a call to `randomBytes` each cost it about a twentieth of its
 * CPU under load. The bytes are as random; a pool is never handed out twice.
 */
export function pooledRandomBytes(n: number): Buffer {
  if (at + n > pool.length) {
    pool = randomBytes(POOL_BYTES);
    at = 0;
  }
  const bytes = pool.subarray(at, at + n);
  at += n;
  return bytes;
}
