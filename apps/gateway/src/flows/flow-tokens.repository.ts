import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { sqlRows } from '@app/database';

/** The only place that queries flow_tokens: which message each Flow send's token went out with. */
@Injectable()
export class FlowTokensRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** Records a token's message; a repeat (a replayed send) changes nothing. */
  async remember(token: string, accountId: string, messageId: string): Promise<void> {
    await this.ds.query(
      `INSERT INTO flow_tokens (token, account_id, message_id) VALUES ($1, $2, $3) ON CONFLICT (token) DO NOTHING`,
      [token, accountId, messageId],
    );
  }

  /** The message a token went out with, or null when it is not one of ours (or no longer kept). */
  async messageOf(token: string): Promise<string | null> {
    const [row] = await sqlRows<{ message_id: string }>(
      this.ds,
      `SELECT message_id FROM flow_tokens WHERE token = $1`,
      [token],
    );
    return row?.message_id ?? null;
  }

  /** Deletes at most `limit` tokens made before `before`: the number deleted. */
  async purgeBefore(before: Date, limit: number): Promise<number> {
    const rows = await sqlRows(
      this.ds,
      `DELETE FROM flow_tokens WHERE token IN (
         SELECT token FROM flow_tokens WHERE created_at < $1 ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED
       ) RETURNING 1`,
      [before, limit],
    );
    return rows.length;
  }
}
