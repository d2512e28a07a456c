import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';

/** One line of an account's audit log. */
export interface AuditEntry {
  id: string;
  at: Date;
  userEmail: string | null;
  action: string;
  target: string | null;
  details: Record<string, unknown>;
}

/** Who did it: a console user, or an operator at the CLI (no user). */
export interface AuditActor {
  id: string;
  email: string;
}

/** The audit log of what was changed through the console, per account, newest first. */
@Injectable()
export class ConsoleAuditRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async record(
    accountId: string,
    actor: AuditActor | null,
    action: string,
    target: string | null,
    details: Record<string, unknown> = {},
  ): Promise<void> {
    await this.ds.query(
      `INSERT INTO console_audit (id, account_id, user_id, user_email, action, target, details)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [uuidv7(), accountId, actor?.id ?? null, actor?.email ?? null, action, target, JSON.stringify(details)],
    );
  }

  /** A page of an account's log, newest first, after the entry `cursor` (exclusive). */
  async page(accountId: string, cursor: string | undefined, limit: number): Promise<AuditEntry[]> {
    const rows = await this.ds.query(
      `SELECT id, at, user_email, action, target, details FROM console_audit
       WHERE account_id = $1 ${cursor ? 'AND id < $3' : ''}
       ORDER BY id DESC LIMIT $2`,
      cursor ? [accountId, limit, cursor] : [accountId, limit],
    );
    return rows.map(
      (r: {
        id: string;
        at: Date;
        user_email: string | null;
        action: string;
        target: string | null;
        details: object;
      }) => ({
        id: r.id,
        at: r.at,
        userEmail: r.user_email,
        action: r.action,
        target: r.target,
        details: r.details as Record<string, unknown>,
      }),
    );
  }
}
