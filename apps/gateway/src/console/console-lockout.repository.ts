import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { hashToken } from '@app/auth';

/** The lock-out window, and the failed sign-ins in it that lock an email, or a client address. */
export const LOCKOUT_WINDOW_S = 15 * 60;
export const LOCKOUT_PER_EMAIL = 5;
export const LOCKOUT_PER_ADDRESS = 20;

/**
 * Failed console sign-ins, counted in Postgres so every gateway replica sees the same counts: each
 * failure is a row per email (hashed) and per client address; a key with its limit of failures in
 * the last 15 minutes is locked until the oldest of them is 15 minutes old.
 */
@Injectable()
export class ConsoleLockoutRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** Seconds until the email and the address may try again; 0 when neither is locked. */
  async lockedFor(email: string, address: string): Promise<number> {
    const rows = await this.ds.query(
      `SELECT key, count(*)::int AS n,
              extract(epoch FROM min(at) + make_interval(secs => $2) - now()) AS wait
       FROM console_sign_in_failures
       WHERE key = ANY($1) AND at > now() - make_interval(secs => $2)
       GROUP BY key`,
      [[emailKey(email), addressKey(address)], LOCKOUT_WINDOW_S],
    );
    let wait = 0;
    for (const r of rows as { key: string; n: number; wait: number }[]) {
      const limit = r.key.startsWith('email:') ? LOCKOUT_PER_EMAIL : LOCKOUT_PER_ADDRESS;
      if (r.n >= limit) wait = Math.max(wait, Math.ceil(Number(r.wait)));
    }
    return wait;
  }

  async recordFailure(email: string, address: string): Promise<void> {
    await this.ds.query(`DELETE FROM console_sign_in_failures WHERE at < now() - make_interval(secs => $1)`, [
      LOCKOUT_WINDOW_S,
    ]);
    await this.ds.query(`INSERT INTO console_sign_in_failures (key) VALUES ($1), ($2)`, [
      emailKey(email),
      addressKey(address),
    ]);
  }

  /** A successful sign-in clears its email's failures (the address's stay counted). */
  async clear(email: string): Promise<void> {
    await this.ds.query(`DELETE FROM console_sign_in_failures WHERE key = $1`, [emailKey(email)]);
  }
}

const emailKey = (email: string) => `email:${hashToken(email.toLowerCase())}`;
const addressKey = (address: string) => `address:${address}`;
