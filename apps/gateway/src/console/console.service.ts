import { Injectable } from '@nestjs/common';
import { unixSeconds } from '@app/contracts';
import { NotFoundProblem, ProblemError, TooManyRequestsProblem } from '@app/server';
import { AccountsRepository } from '../accounts/accounts.repository';
import { GatewayConfig } from '../config';
import { ConsoleAuditRepository } from './console-audit.repository';
import { ConsoleSession, ConsoleSessionsRepository } from './console-sessions.repository';
import { ConsoleLockoutRepository } from './console-lockout.repository';
import { ConsoleLocale, ConsoleRole } from './console-roles';
import { ConsoleUser, ConsoleUsersRepository } from './console-users.repository';
import { ConsoleSessionDto, ConsoleUserDto, InvitationDto } from './console.dto';
import { hashPassword, verifyPassword } from './passwords';

/** Emails are compared and stored lower-cased. */
export const normalEmail = (email: string): string => email.trim().toLowerCase();

/** The console's invitation link for a token: the app reads the token after #, which no server log sees. */
export const invitationUrl = (publicUrl: string, token: string): string =>
  `${publicUrl.replace(/\/+$/, '')}/console/invite#${token}`;

export class InvalidCredentialsProblem extends ProblemError {
  constructor() {
    super(401, 'invalid-credentials', 'Invalid credentials', 'The email or the password is wrong.');
  }
}

class LockedOutProblem extends TooManyRequestsProblem {
  constructor(waitS: number) {
    super('locked-out', 'Locked out', `Too many failed sign-ins; try again in ${waitS} s.`, waitS);
  }
}

/** Sign-in, invitations and the account's console users (docs/console.md). */
@Injectable()
export class ConsoleService {
  constructor(
    private readonly users: ConsoleUsersRepository,
    private readonly sessions: ConsoleSessionsRepository,
    private readonly lockout: ConsoleLockoutRepository,
    private readonly audit: ConsoleAuditRepository,
    private readonly accounts: AccountsRepository,
    private readonly config: GatewayConfig,
  ) {}

  private get limits() {
    return { idleS: this.config.CONSOLE_SESSION_IDLE_S, maxS: this.config.CONSOLE_SESSION_MAX_S };
  }

  /**
   * A new session for the email and password: 401 when either is wrong (the same answer, and the
   * same work, for an unknown email), 429 once the email or the address is locked out.
   */
  async signIn(
    emailGiven: string,
    password: string,
    address: string,
  ): Promise<{ id: string; session: ConsoleSessionDto }> {
    const email = normalEmail(emailGiven);
    const wait = await this.lockout.lockedFor(email, address);
    if (wait > 0) throw new LockedOutProblem(wait);
    const found = await this.users.findForSignIn(email);
    if (!(await verifyPassword(password, found?.passwordHash ?? null)) || !found) {
      await this.lockout.recordFailure(email, address);
      if (found) await this.audit.record(found.user.accountId, found.user, 'session.sign_in_failed', found.user.id);
      throw new InvalidCredentialsProblem();
    }
    await this.lockout.clear(email);
    await this.audit.record(found.user.accountId, found.user, 'session.signed_in', found.user.id);
    return this.open(found.user);
  }

  /** Takes an invitation: its user, with this password, signed in. 404 for an unknown, used or expired one. */
  async acceptInvitation(token: string, password: string): Promise<{ id: string; session: ConsoleSessionDto }> {
    const user = await this.users.accept(token, await hashPassword(password));
    if (!user) throw new NotFoundProblem('invitation (or it was used, or it expired)');
    await this.audit.record(user.accountId, user, 'invitation.accepted', user.id, { role: user.role });
    return this.open(user);
  }

  view(session: ConsoleSession): ConsoleSessionDto {
    return {
      user: {
        id: session.user.id,
        email: session.user.email,
        role: session.user.role,
        account_id: session.account.id,
        account_name: session.account.name,
        locale: session.user.locale,
      },
      csrf_token: session.csrfToken,
    };
  }

  userView(user: ConsoleUser): ConsoleUserDto {
    return {
      id: user.id,
      email: user.email,
      role: user.role,
      locale: user.locale,
      created_at: unixSeconds(user.createdAt),
    };
  }

  /** An invitation link for an email and role; `by` is the owner inviting, null for the CLI. */
  async invite(
    accountId: string,
    email: string,
    role: ConsoleRole,
    by: { id: string; email: string } | null,
  ): Promise<InvitationDto> {
    const { token, expiresAt } = await this.users.invite(accountId, normalEmail(email), role, by?.id ?? null);
    await this.audit.record(accountId, by, 'user.invited', normalEmail(email), { role });
    return { invitation_url: invitationUrl(this.config.GATEWAY_PUBLIC_URL, token), expires_at: unixSeconds(expiresAt) };
  }

  async setRole(session: ConsoleSession, id: string, role: ConsoleRole): Promise<ConsoleUserDto> {
    const user = await this.users.setRole(session.account.id, id, role);
    if (!user) throw new NotFoundProblem('console user');
    await this.audit.record(session.account.id, session.user, 'user.role_changed', id, { role });
    return this.userView(user);
  }

  async remove(session: ConsoleSession, id: string): Promise<void> {
    const user = await this.users.remove(session.account.id, id);
    if (!user) throw new NotFoundProblem('console user');
    await this.audit.record(session.account.id, session.user, 'user.removed', id, { email: user.email });
  }

  async setLocale(session: ConsoleSession, locale: ConsoleLocale): Promise<ConsoleSessionDto> {
    await this.users.setLocale(session.user.id, locale);
    await this.audit.record(session.account.id, session.user, 'user.locale_changed', session.user.id, { locale });
    return this.view({ ...session, user: { ...session.user, locale } });
  }

  async signOut(session: ConsoleSession): Promise<void> {
    await this.sessions.end(session.idHash);
    await this.audit.record(session.account.id, session.user, 'session.signed_out', session.user.id);
  }

  async signOutEverywhere(session: ConsoleSession): Promise<void> {
    await this.sessions.endAllOf(session.user.id);
    await this.audit.record(session.account.id, session.user, 'session.signed_out_everywhere', session.user.id);
  }

  private async open(user: ConsoleUser): Promise<{ id: string; session: ConsoleSessionDto }> {
    const account = await this.accounts.findAccount(user.accountId);
    if (!account) throw new InvalidCredentialsProblem();
    const { id, csrfToken } = await this.sessions.create(user.id, this.limits);
    return {
      id,
      session: this.view({
        idHash: '',
        csrfToken,
        user: { id: user.id, email: user.email, role: user.role, locale: user.locale },
        account: { id: account.id, name: account.name, userId: account.userId },
      }),
    };
  }
}
