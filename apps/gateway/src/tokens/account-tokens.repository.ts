import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { generateToken, hashToken } from '@app/auth';
import { ConflictProblem } from '@app/server';

/** Most live tokens one account may have. */
export const MAX_LIVE_TOKENS = 100;

export interface AccountTokenRow {
  id: string;
  label: string | null;
  createdAt: Date;
}

/** An account's own tokens, as `/v1/tokens` manages them (never their value after creation). */
@Injectable()
export class AccountTokensRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** The account's live tokens, newest first (at most MAX_LIVE_TOKENS). */
  async list(accountId: string): Promise<AccountTokenRow[]> {
    const rows = await this.ds.query(
      `SELECT id, label, created_at FROM account_tokens WHERE account_id = $1 AND revoked_at IS NULL
       ORDER BY created_at DESC, id DESC LIMIT $2`,
      [accountId, MAX_LIVE_TOKENS],
    );
    return rows.map((r: { id: string; label: string | null; created_at: Date }) => ({
      id: r.id,
      label: r.label,
      createdAt: r.created_at,
    }));
  }

  /** A new token (its value shown only here); 409 past MAX_LIVE_TOKENS. */
  async create(accountId: string, label: string | null): Promise<AccountTokenRow & { token: string }> {
    return this.ds.transaction(async (em) => {
      // One account's creations one at a time, so the cap holds under concurrent requests.
      await em.query(`SELECT id FROM accounts WHERE id = $1 FOR UPDATE`, [accountId]);
      const live = await em.query(
        `SELECT count(*)::int AS n FROM account_tokens WHERE account_id = $1 AND revoked_at IS NULL`,
        [accountId],
      );
      if (live[0].n >= MAX_LIVE_TOKENS) {
        throw new ConflictProblem(
          'too-many-tokens',
          'Too many tokens',
          `An account may have at most ${MAX_LIVE_TOKENS} live tokens; revoke one first.`,
        );
      }
      const token = generateToken('gk');
      const id = uuidv7();
      const rows = await em.query(
        `INSERT INTO account_tokens (id, account_id, token_hash, label) VALUES ($1, $2, $3, $4) RETURNING created_at`,
        [id, accountId, hashToken(token), label],
      );
      return { id, label, createdAt: rows[0].created_at as Date, token };
    });
  }

  /** Revokes one of the account's live tokens at once; false when it has none with that id. */
  async revoke(accountId: string, id: string): Promise<boolean> {
    const result = await this.ds.query(
      `UPDATE account_tokens SET revoked_at = now() WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL`,
      [id, accountId],
    );
    return (result[1] ?? 0) > 0;
  }
}
