import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** The only place that queries conversation_windows. */
@Injectable()
export class ConversationsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * The apps whose WhatsApp number is this connection (phone_number_id). A read-only look at the
   * apps table: inbound events name the connection, not the app.
   */
  async appIdsForConnection(connectionId: string): Promise<number[]> {
    const rows: { id: number }[] = await this.ds.query(`SELECT id FROM apps WHERE phone_number_id = $1`, [
      connectionId,
    ]);
    return rows.map((r) => r.id);
  }

  /** Records an inbound message; a late (older) event never moves the window back. */
  async touch(appId: number, recipient: string, at: Date): Promise<void> {
    await this.ds.query(
      `INSERT INTO conversation_windows (app_id, recipient, last_inbound_at) VALUES ($1, $2, $3)
       ON CONFLICT (app_id, recipient)
       DO UPDATE SET last_inbound_at = greatest(conversation_windows.last_inbound_at, excluded.last_inbound_at)`,
      [appId, recipient, at],
    );
  }

  /** When each of these recipients' last inbound message to the app arrived, for those that ever wrote. */
  async lastInboundOf(appId: number, recipients: string[]): Promise<Map<string, Date>> {
    const rows: { recipient: string; last_inbound_at: Date }[] = await this.ds.query(
      `SELECT recipient, last_inbound_at FROM conversation_windows WHERE app_id = $1 AND recipient = ANY($2::text[])`,
      [appId, recipients],
    );
    return new Map(rows.map((r) => [r.recipient, r.last_inbound_at]));
  }

  /** When the recipient's last inbound message to the app arrived, if ever. */
  async lastInbound(appId: number, recipient: string): Promise<Date | null> {
    const rows: { last_inbound_at: Date }[] = await this.ds.query(
      `SELECT last_inbound_at FROM conversation_windows WHERE app_id = $1 AND recipient = $2`,
      [appId, recipient],
    );
    return rows[0]?.last_inbound_at ?? null;
  }
}
