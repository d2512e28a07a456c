import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import {
  ConversationContent,
  ConversationDirection,
  ConversationStatus,
  GatewaySendChannel,
  MessageStatus,
} from '@app/contracts';
import { sqlRows } from '@app/database';

/** A conversation as stored. */
export interface ConversationRow {
  id: string;
  account_id: string;
  connection_id: string;
  channel: GatewaySendChannel;
  contact_id: string;
  /** The customer's address on the channel: where replies go. */
  address: string;
  status: ConversationStatus;
  assignee: string | null;
  labels: string[];
  version: number;
  unread_count: number;
  last_message_at: Date | null;
  last_inbound_at: Date | null;
  last_inbound_provider_id: string | null;
  /** WhatsApp: the business number (phone_number_id) the customer wrote to, where read markers go. */
  sender: string | null;
  last_message: ConversationMessagePreview | null;
  created_at: Date;
  updated_at: Date;
  /** The contact's name (read with the row). */
  contact_name?: string | null;
}

/** The last message of a conversation, as its list shows it. */
export interface ConversationMessagePreview {
  id: string;
  direction: ConversationDirection;
  status: MessageStatus | 'RECEIVED';
  content: ConversationContent;
  /** Unix seconds. */
  timestamp: number;
}

/** A message of a conversation as stored. */
export interface ConversationMessageRow {
  id: string;
  conversation_id: string;
  direction: ConversationDirection;
  provider_message_id: string | null;
  message_id: string | null;
  status: MessageStatus | 'RECEIVED';
  content: ConversationContent;
  channel_timestamp: Date;
  created_at: Date;
}

/** A message to record: `at` is when the channel says it was written or sent. */
export interface NewConversationMessage {
  direction: ConversationDirection;
  providerMessageId: string | null;
  messageId: string | null;
  status: MessageStatus | 'RECEIVED';
  content: ConversationContent;
  at: Date;
}

export interface ConversationFilter {
  status?: ConversationStatus;
  assignee?: string;
  channel?: string;
  label?: string;
  unread?: boolean;
  updatedSince?: Date;
}

/** The changes of a PATCH: undefined leaves a field as it is. */
export interface ConversationChanges {
  assignee?: string | null;
  status?: ConversationStatus;
  labels?: string[];
}

/**
 * The content type of an outbound message recorded from a status event (its content is not known
 * there): the content a reply records at acceptance replaces it, whichever comes first.
 */
export const UNKNOWN_CONTENT_TYPE = 'message';

/** A status's rank in SQL, as statusRank ranks it (a status never moves back). */
const rank = (col: string) =>
  `(CASE ${col} WHEN 'QUEUED' THEN 0 WHEN 'SENT' THEN 1 WHEN 'DELIVERED' THEN 2 WHEN 'RECEIVED' THEN 0 ELSE 3 END)`;

/** A timestamptz as exact text (microseconds, UTC), for list cursors. */
const EXACT = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** A conversation's columns with its contact's name. */
const CONVERSATION = `conversations.*, (SELECT k.name FROM contacts k WHERE k.id = conversations.contact_id) AS contact_name`;

const MESSAGE_COLUMNS = `id, conversation_id, direction, provider_message_id, message_id, status, content,
  channel_timestamp, created_at`;

/** The preview of a message row as jsonb (the row aliased `m`). */
const PREVIEW = `jsonb_build_object('id', m.id, 'direction', m.direction, 'status', m.status, 'content', m.content,
  'timestamp', floor(extract(epoch FROM m.channel_timestamp))::bigint)`;

/** The only place that queries conversations and their messages. */
@Injectable()
export class ConversationsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** The conversation of (account, connection, contact), created on its first message; a concurrent create finds the first. */
  async open(
    accountId: string,
    connectionId: string,
    channel: string,
    contactId: string,
    address: string,
    sender: string | null = null,
  ): Promise<ConversationRow> {
    await this.ds.query(
      `INSERT INTO conversations (id, account_id, connection_id, channel, contact_id, address, sender)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (account_id, connection_id, contact_id) DO UPDATE SET sender = EXCLUDED.sender
         WHERE EXCLUDED.sender IS NOT NULL AND conversations.sender IS DISTINCT FROM EXCLUDED.sender`,
      [uuidv7(), accountId, connectionId, channel, contactId, address, sender],
    );
    const [row] = await sqlRows<ConversationRow>(
      this.ds,
      `SELECT * FROM conversations WHERE account_id = $1 AND connection_id = $2 AND contact_id = $3`,
      [accountId, connectionId, contactId],
    );
    return row;
  }

  /**
   * Adds a message to the conversation, once: a repeated inbound update (same provider id) or
   * outbound message (same message id) changes nothing but, outbound, moves its status forward.
   * Null when it was there already; the new row otherwise, with the conversation's last message,
   * unread count and window moved on, in one transaction.
   */
  async add(conversation: ConversationRow, m: NewConversationMessage): Promise<ConversationMessageRow | null> {
    return this.ds.transaction(async (em) => {
      const conflict =
        m.direction === 'in'
          ? `ON CONFLICT (conversation_id, direction, provider_message_id) WHERE direction = 'in' DO NOTHING`
          : `ON CONFLICT (message_id) WHERE message_id IS NOT NULL DO UPDATE
               SET status = CASE WHEN ${rank('EXCLUDED.status')} > ${rank('conversation_messages.status')}
                                 THEN EXCLUDED.status ELSE conversation_messages.status END,
                   provider_message_id = coalesce(conversation_messages.provider_message_id, EXCLUDED.provider_message_id),
                   content = CASE WHEN EXCLUDED.content ->> 'type' <> '${UNKNOWN_CONTENT_TYPE}' THEN EXCLUDED.content
                                  ELSE conversation_messages.content END`;
      const [row] = await sqlRows<ConversationMessageRow & { inserted: boolean }>(
        em,
        `INSERT INTO conversation_messages (id, conversation_id, account_id, direction, provider_message_id, message_id,
                                            status, content, channel_timestamp)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ${conflict}
         RETURNING ${MESSAGE_COLUMNS}, (xmax = 0) AS inserted`,
        [
          uuidv7(),
          conversation.id,
          conversation.account_id,
          m.direction,
          m.providerMessageId,
          m.messageId,
          m.status,
          JSON.stringify(m.content),
          m.at,
        ],
      );
      if (!row?.inserted) {
        if (row) await this.refreshPreview(em, row.id);
        return null;
      }
      const inbound = m.direction === 'in';
      await em.query(
        `UPDATE conversations c SET
            unread_count = unread_count + $3,
            last_inbound_at = CASE WHEN $4 AND (last_inbound_at IS NULL OR last_inbound_at <= $5) THEN $5
                                   ELSE last_inbound_at END,
            last_inbound_provider_id = CASE WHEN $4 AND (last_inbound_at IS NULL OR last_inbound_at <= $5) THEN $6
                                   ELSE last_inbound_provider_id END,
            last_message = CASE WHEN last_message_at IS NULL OR last_message_at <= $5
                                THEN (SELECT ${PREVIEW} FROM conversation_messages m WHERE m.id = $2)
                                ELSE last_message END,
            last_message_at = greatest(last_message_at, $5),
            updated_at = now()
          WHERE c.id = $1`,
        [conversation.id, row.id, inbound ? 1 : 0, inbound, m.at, m.providerMessageId],
      );
      const { inserted: _inserted, ...message } = row;
      return message;
    });
  }

  /** Keeps the conversation's last-message preview in step with a message that changed (status, content). */
  private async refreshPreview(em: DataSource | EntityManager, messageId: string): Promise<void> {
    await em.query(
      `UPDATE conversations c SET last_message = p.preview, updated_at = now()
         FROM (SELECT ${PREVIEW} AS preview, m.conversation_id FROM conversation_messages m WHERE m.id = $1::uuid) p
        WHERE c.id = p.conversation_id AND c.last_message ->> 'id' = ($1::uuid)::text
          AND c.last_message IS DISTINCT FROM p.preview`,
      [messageId],
    );
  }

  /** Moves an outbound message's status forward, wherever it is; false when no conversation has it. */
  async advance(messageId: string, status: MessageStatus, providerMessageId: string | null): Promise<boolean> {
    const rows = await sqlRows<{ id: string }>(
      this.ds,
      `UPDATE conversation_messages SET status = CASE WHEN ${rank('$2')} > ${rank('status')} THEN $2 ELSE status END,
              provider_message_id = coalesce(provider_message_id, $3)
        WHERE message_id = $1 RETURNING id`,
      [messageId, status, providerMessageId],
    );
    if (rows[0]) await this.refreshPreview(this.ds, rows[0].id);
    return rows.length > 0;
  }

  /** The account's conversation, or null (another account's is not found either). */
  async find(accountId: string, id: string): Promise<ConversationRow | null> {
    const [row] = await sqlRows<ConversationRow>(
      this.ds,
      `SELECT ${CONVERSATION} FROM conversations WHERE id = $1 AND account_id = $2`,
      [id, accountId],
    );
    return row ?? null;
  }

  /** A page of the account's conversations, the latest updated first; `after` is a cursor's (updated_at, id). */
  async page(
    accountId: string,
    f: ConversationFilter,
    after: { updatedAt: string; id: string } | null,
    limit: number,
  ): Promise<{ rows: (ConversationRow & { cursor_at: string })[]; more: boolean }> {
    const params: unknown[] = [accountId];
    const where = ['account_id = $1'];
    const add = (sql: (p: string) => string, value: unknown) => {
      params.push(value);
      where.push(sql(`$${params.length}`));
    };
    if (f.status) add((p) => `status = ${p}`, f.status);
    if (f.assignee) add((p) => `assignee = ${p}`, f.assignee);
    if (f.channel) add((p) => `channel = ${p}`, f.channel);
    if (f.label) add((p) => `${p} = ANY(labels)`, f.label);
    if (f.unread === true) where.push('unread_count > 0');
    if (f.unread === false) where.push('unread_count = 0');
    if (f.updatedSince) add((p) => `updated_at >= ${p}`, f.updatedSince);
    if (after) {
      params.push(after.updatedAt, after.id);
      where.push(`(updated_at, id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
    }
    params.push(limit + 1);
    const rows = await sqlRows<ConversationRow & { cursor_at: string }>(
      this.ds,
      `SELECT ${CONVERSATION}, ${EXACT('updated_at')} AS cursor_at FROM conversations WHERE ${where.join(' AND ')}
        ORDER BY updated_at DESC, id DESC LIMIT $${params.length}`,
      params,
    );
    return { rows: rows.slice(0, limit), more: rows.length > limit };
  }

  /**
   * A page of a conversation's messages in channel order: the latest `limit` ones, or those just
   * before or just after the message `cursor` names. Null when the cursor is not of this conversation.
   */
  async messages(
    conversationId: string,
    cursor: { before?: string; after?: string },
    limit: number,
  ): Promise<{ rows: ConversationMessageRow[]; more: boolean } | null> {
    const at = cursor.before ?? cursor.after;
    if (at) {
      const [known] = await sqlRows<{ id: string }>(
        this.ds,
        `SELECT id FROM conversation_messages WHERE id = $1 AND conversation_id = $2`,
        [at, conversationId],
      );
      if (!known) return null;
    }
    const key = `(SELECT channel_timestamp FROM conversation_messages WHERE id = $2), $2::uuid`;
    const [cmp, order] = cursor.after ? ['>', 'ASC'] : ['<', 'DESC'];
    const rows = await sqlRows<ConversationMessageRow>(
      this.ds,
      `SELECT ${MESSAGE_COLUMNS} FROM conversation_messages
        WHERE conversation_id = $1 ${at ? `AND (channel_timestamp, id) ${cmp} (${key})` : 'AND $2::uuid IS NULL'}
        ORDER BY channel_timestamp ${order}, id ${order} LIMIT $3`,
      [conversationId, at ?? null, limit + 1],
    );
    const page = rows.slice(0, limit);
    return { rows: cursor.after ? page : page.reverse(), more: rows.length > limit };
  }

  /**
   * Applies a PATCH when the conversation is still at `version` (any version when null): the row
   * after it and the one before, or null when the version moved on (or the conversation is not the
   * account's).
   */
  async change(
    accountId: string,
    id: string,
    version: number | null,
    c: ConversationChanges,
  ): Promise<{ before: ConversationRow; after: ConversationRow } | null> {
    return this.ds.transaction(async (em) => {
      const [before] = await sqlRows<ConversationRow>(
        em,
        `SELECT * FROM conversations WHERE id = $1 AND account_id = $2 FOR UPDATE`,
        [id, accountId],
      );
      if (!before || (version !== null && before.version !== version)) return null;
      const [after] = await sqlRows<ConversationRow>(
        em,
        `UPDATE conversations SET assignee = $2, status = $3, labels = $4, version = version + 1, updated_at = now()
          WHERE id = $1 RETURNING *`,
        [
          id,
          c.assignee === undefined ? before.assignee : c.assignee,
          c.status ?? before.status,
          c.labels ?? before.labels,
        ],
      );
      return { before, after };
    });
  }

  /** Sets the unread count back to 0. */
  async markRead(id: string): Promise<ConversationRow> {
    const [row] = await sqlRows<ConversationRow>(
      this.ds,
      `UPDATE conversations SET unread_count = 0, updated_at = CASE WHEN unread_count > 0 THEN now() ELSE updated_at END
        WHERE id = $1 RETURNING *`,
      [id],
    );
    return row;
  }
}
