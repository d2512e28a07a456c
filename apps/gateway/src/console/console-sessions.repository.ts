import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { hashToken } from '@app/auth';
import { AuthenticatedAccount } from '../accounts/authenticated-account';
import { ConsoleLocale, ConsoleRole } from './console-roles';

/** A live console session: who signed in, to which account, and the token its changes carry. */
export interface ConsoleSession {
  idHash: string;
  csrfToken: string;
  user: { id: string; email: string; role: ConsoleRole; locale: ConsoleLocale };
  account: AuthenticatedAccount;
}

/** Sessions' lifetimes, in seconds. */
export interface SessionLimits {
  idleS: number;
  maxS: number;
}

/**
 * Console sessions: a random 256-bit id in the cookie, stored only as its SHA-256, with an idle
 * and an absolute expiry. A lookup is one indexed query; `last_seen_at` is written at most once a
 * minute (sooner for idle limits under two minutes).
 */
@Injectable()
export class ConsoleSessionsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** A new session of a user: its id (for the cookie, shown only here) and its CSRF token. */
  async create(userId: string, limits: SessionLimits): Promise<{ id: string; csrfToken: string }> {
    // Expired sessions go as new ones come: the table holds about the live ones.
    await this.ds.query(
      `DELETE FROM console_sessions
       WHERE last_seen_at < now() - make_interval(secs => $1) OR created_at < now() - make_interval(secs => $2)`,
      [limits.idleS, limits.maxS],
    );
    const id = randomBytes(32).toString('base64url');
    const csrfToken = randomBytes(32).toString('base64url');
    await this.ds.query(`INSERT INTO console_sessions (id_hash, user_id, csrf_token) VALUES ($1, $2, $3)`, [
      hashToken(id),
      userId,
      csrfToken,
    ]);
    return { id, csrfToken };
  }

  /** The live session behind a cookie's id, or null (unknown, signed out, idle too long or too old). */
  async find(id: string, limits: SessionLimits): Promise<ConsoleSession | null> {
    const idHash = hashToken(id);
    const touchAfterS = Math.min(60, limits.idleS / 2);
    const rows = await this.ds.query(
      `SELECT s.csrf_token, s.last_seen_at < now() - make_interval(secs => $4) AS stale,
              u.id AS user_id, u.email, u.role, u.locale,
              a.id AS account_id, a.name, a.user_id AS api_user_id, a.time_zone, a.default_region
       FROM console_sessions s
       JOIN console_users u ON u.id = s.user_id
       JOIN accounts a ON a.id = u.account_id
       WHERE s.id_hash = $1 AND s.last_seen_at > now() - make_interval(secs => $2)
         AND s.created_at > now() - make_interval(secs => $3)`,
      [idHash, limits.idleS, limits.maxS, touchAfterS],
    );
    const r = rows[0];
    if (!r) return null;
    if (r.stale) await this.ds.query(`UPDATE console_sessions SET last_seen_at = now() WHERE id_hash = $1`, [idHash]);
    return {
      idHash,
      csrfToken: r.csrf_token,
      user: { id: r.user_id, email: r.email, role: r.role, locale: r.locale },
      account: {
        id: r.account_id,
        name: r.name,
        userId: r.api_user_id,
        timeZone: r.time_zone,
        defaultRegion: r.default_region,
      },
    };
  }

  async end(idHash: string): Promise<void> {
    await this.ds.query(`DELETE FROM console_sessions WHERE id_hash = $1`, [idHash]);
  }

  /** Ends every session of a user (sign out everywhere, a removed user, a changed role). */
  async endAllOf(userId: string): Promise<void> {
    await this.ds.query(`DELETE FROM console_sessions WHERE user_id = $1`, [userId]);
  }
}
