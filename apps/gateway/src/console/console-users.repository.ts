import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { hashToken } from '@app/auth';
import { ConflictProblem } from '@app/server';
import { ConsoleLocale, ConsoleRole } from './console-roles';

export interface ConsoleUser {
  id: string;
  accountId: string;
  email: string;
  role: ConsoleRole;
  locale: ConsoleLocale;
  createdAt: Date;
}

/** How long an invitation link works. */
export const INVITATION_TTL_DAYS = 7;
/** Most console users of one account, and most invitations waiting at once. */
export const MAX_USERS_PER_ACCOUNT = 200;
export const MAX_PENDING_INVITATIONS = 100;

const USER_COLUMNS = 'id, account_id, email, role, locale, created_at';
const toUser = (r: {
  id: string;
  account_id: string;
  email: string;
  role: ConsoleRole;
  locale: ConsoleLocale;
  created_at: Date;
}): ConsoleUser => ({
  id: r.id,
  accountId: r.account_id,
  email: r.email,
  role: r.role,
  locale: r.locale,
  createdAt: r.created_at,
});

const isUniqueViolation = (err: unknown) => (err as { code?: string }).code === '23505';
const emailTaken = () =>
  new ConflictProblem('console-user-exists', 'Email already in use', 'A console user with this email already exists.');

/** The only place that queries console users and their invitations. */
@Injectable()
export class ConsoleUsersRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** A new user; 409 when the email is taken (emails are unique across accounts: sign-in names none). */
  async create(
    accountId: string,
    email: string,
    role: ConsoleRole,
    passwordHash: string,
    em: EntityManager = this.ds.manager,
  ): Promise<ConsoleUser> {
    await this.assertRoom(accountId, em);
    try {
      const rows = await em.query(
        `INSERT INTO console_users (id, account_id, email, role, password_hash) VALUES ($1, $2, $3, $4, $5)
         RETURNING ${USER_COLUMNS}`,
        [uuidv7(), accountId, email, role, passwordHash],
      );
      return toUser(rows[0]);
    } catch (err) {
      if (isUniqueViolation(err)) throw emailTaken();
      throw err;
    }
  }

  /**
   * An owner of the account with this email and password hash, made or reset (the local stack's
   * demo owner): its role and password are set again, its sessions end.
   */
  async ensureOwner(accountId: string, email: string, passwordHash: string): Promise<void> {
    await this.ds.query(
      `INSERT INTO console_users (id, account_id, email, role, password_hash) VALUES ($1, $2, $3, 'owner', $4)
       ON CONFLICT ((lower(email))) DO UPDATE SET account_id = $2, role = 'owner', password_hash = $4`,
      [uuidv7(), accountId, email, passwordHash],
    );
    await this.ds.query(
      `DELETE FROM console_sessions WHERE user_id = (SELECT id FROM console_users WHERE lower(email) = lower($1))`,
      [email],
    );
  }

  /** The user with this email and its password hash, for sign-in. */
  async findForSignIn(email: string): Promise<{ user: ConsoleUser; passwordHash: string } | null> {
    const rows = await this.ds.query(
      `SELECT ${USER_COLUMNS}, password_hash FROM console_users WHERE lower(email) = lower($1)`,
      [email],
    );
    return rows[0] ? { user: toUser(rows[0]), passwordHash: rows[0].password_hash } : null;
  }

  async find(accountId: string, id: string): Promise<ConsoleUser | null> {
    const rows = await this.ds.query(`SELECT ${USER_COLUMNS} FROM console_users WHERE account_id = $1 AND id = $2`, [
      accountId,
      id,
    ]);
    return rows[0] ? toUser(rows[0]) : null;
  }

  /** Every user of an account (at most MAX_USERS_PER_ACCOUNT), oldest first. */
  async list(accountId: string): Promise<ConsoleUser[]> {
    const rows = await this.ds.query(
      `SELECT ${USER_COLUMNS} FROM console_users WHERE account_id = $1 ORDER BY created_at, id LIMIT $2`,
      [accountId, MAX_USERS_PER_ACCOUNT],
    );
    return rows.map(toUser);
  }

  /** Changes a role; 409 when that would leave the account without an owner. Null: no such user. */
  async setRole(accountId: string, id: string, role: ConsoleRole): Promise<ConsoleUser | null> {
    return this.ds.transaction(async (em) => {
      const user = await this.lockUser(em, accountId, id);
      if (!user) return null;
      if (user.role === 'owner' && role !== 'owner') await this.assertAnotherOwner(em, accountId, id);
      const rows = await em.query(`UPDATE console_users SET role = $2 WHERE id = $1 RETURNING ${USER_COLUMNS}`, [
        id,
        role,
      ]);
      return toUser(rows[0][0]);
    });
  }

  /** Removes a user and ends its sessions; 409 for the last owner. Null: no such user. */
  async remove(accountId: string, id: string): Promise<ConsoleUser | null> {
    return this.ds.transaction(async (em) => {
      const user = await this.lockUser(em, accountId, id);
      if (!user) return null;
      if (user.role === 'owner') await this.assertAnotherOwner(em, accountId, id);
      await em.query(`DELETE FROM console_users WHERE id = $1`, [id]);
      return user;
    });
  }

  async setLocale(id: string, locale: ConsoleLocale): Promise<void> {
    await this.ds.query(`UPDATE console_users SET locale = $2 WHERE id = $1`, [id, locale]);
  }

  /** An invitation (its token shown once); 409 when the email already has a user. */
  async invite(
    accountId: string,
    email: string,
    role: ConsoleRole,
    invitedBy: string | null,
  ): Promise<{ token: string; expiresAt: Date }> {
    const existing = await this.ds.query(`SELECT 1 FROM console_users WHERE lower(email) = lower($1)`, [email]);
    if (existing.length) throw emailTaken();
    const pending = await this.ds.query(
      `SELECT count(*)::int AS n FROM console_invitations
       WHERE account_id = $1 AND accepted_at IS NULL AND expires_at > now()`,
      [accountId],
    );
    if (pending[0].n >= MAX_PENDING_INVITATIONS) {
      throw new ConflictProblem(
        'too-many-invitations',
        'Too many invitations',
        `An account may have at most ${MAX_PENDING_INVITATIONS} invitations waiting.`,
      );
    }
    await this.ds.query(`DELETE FROM console_invitations WHERE expires_at < now() - interval '1 day'`);
    const token = randomBytes(32).toString('base64url');
    const rows = await this.ds.query(
      `INSERT INTO console_invitations (token_hash, account_id, email, role, invited_by, expires_at)
       VALUES ($1, $2, $3, $4, $5, now() + make_interval(days => $6)) RETURNING expires_at`,
      [hashToken(token), accountId, email, role, invitedBy, INVITATION_TTL_DAYS],
    );
    return { token, expiresAt: rows[0].expires_at as Date };
  }

  /** Takes an invitation once: its user, created with the password's hash; null when unknown, used or expired. */
  async accept(token: string, passwordHash: string): Promise<ConsoleUser | null> {
    return this.ds.transaction(async (em) => {
      const rows = await em.query(
        `UPDATE console_invitations SET accepted_at = now()
         WHERE token_hash = $1 AND accepted_at IS NULL AND expires_at > now()
         RETURNING account_id, email, role`,
        [hashToken(token)],
      );
      const invitation = rows[0][0] as { account_id: string; email: string; role: ConsoleRole } | undefined;
      if (!invitation) return null;
      return this.create(invitation.account_id, invitation.email, invitation.role, passwordHash, em);
    });
  }

  private async assertRoom(accountId: string, em: EntityManager): Promise<void> {
    const rows = await em.query(`SELECT count(*)::int AS n FROM console_users WHERE account_id = $1`, [accountId]);
    if (rows[0].n >= MAX_USERS_PER_ACCOUNT) {
      throw new ConflictProblem(
        'too-many-console-users',
        'Too many console users',
        `An account may have at most ${MAX_USERS_PER_ACCOUNT} console users.`,
      );
    }
  }

  private async lockUser(em: EntityManager, accountId: string, id: string): Promise<ConsoleUser | null> {
    // The account's owners are locked together, so two changes cannot both remove "the other" owner.
    await em.query(`SELECT id FROM console_users WHERE account_id = $1 AND role = 'owner' FOR UPDATE`, [accountId]);
    const rows = await em.query(
      `SELECT ${USER_COLUMNS} FROM console_users WHERE account_id = $1 AND id = $2 FOR UPDATE`,
      [accountId, id],
    );
    return rows[0] ? toUser(rows[0]) : null;
  }

  private async assertAnotherOwner(em: EntityManager, accountId: string, id: string): Promise<void> {
    const rows = await em.query(
      `SELECT count(*)::int AS n FROM console_users WHERE account_id = $1 AND role = 'owner' AND id <> $2`,
      [accountId, id],
    );
    if (rows[0].n === 0) {
      throw new ConflictProblem('last-owner', 'Last owner', 'An account keeps at least one owner.');
    }
  }
}
