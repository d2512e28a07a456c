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
import { planEachTime, sqlRows } from '@app/database';
import { CONTACT_JOIN, CONVERSATION, ConversationFilter, conversationPageQuery, EXACT } from './conversation-pages';

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

/** A thread to open: the conversation of a contact on an account's connection. */
export interface NewThread {
  accountId: string;
  connectionId: string;
  channel: string;
  contactId: string;
  address: string;
  /** WhatsApp: the business number written to. */
  sender: string | null;
}

/** The key of a thread (account, connection, contact) in maps of conversations. */
export const threadKey = (accountId: string, connectionId: string, contactId: string): string =>
  `${accountId}|${connectionId}|${contactId}`;

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

export const MESSAGE_COLUMNS = `id, conversation_id, direction, provider_message_id, message_id, status, content,
  channel_timestamp, created_at`;

/** The preview of a message row as jsonb (the row aliased `m`). */
const PREVIEW = `jsonb_build_object('id', m.id, 'direction', m.direction, 'status', m.status, 'content', m.content,
  'timestamp', floor(extract(epoch FROM m.channel_timestamp))::bigint)`;

/** The only place that queries conversations and their messages. */
@Injectable()
export class ConversationsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * Adds a message to the conversation of a thread, once, and makes the conversation with it, in
   * one transaction (no conversation is seen without its first message): a repeated inbound update
   * (same provider id) or outbound message (same message id) changes nothing but, outbound, moves
   * its status forward and fills in content a status left unknown (never content the purge removed).
   * The new row (null when it was there already) with the conversation's last message, unread count
   * and window moved on.
   */
  async add(
    thread: NewThread,
    m: NewConversationMessage,
  ): Promise<{ conversation: ConversationRow; row: ConversationMessageRow | null }> {
    return this.ds.transaction(async (em) => {
      const conversation = (await this.openIn(em, [thread])).get(
        threadKey(thread.accountId, thread.connectionId, thread.contactId),
      )!;
      const conflict =
        m.direction === 'in'
          ? `ON CONFLICT (conversation_id, direction, provider_message_id) WHERE direction = 'in' DO NOTHING`
          : `ON CONFLICT (message_id) WHERE message_id IS NOT NULL DO UPDATE
               SET status = CASE WHEN ${rank('EXCLUDED.status')} > ${rank('conversation_messages.status')}
                                 THEN EXCLUDED.status ELSE conversation_messages.status END,
                   provider_message_id = coalesce(conversation_messages.provider_message_id, EXCLUDED.provider_message_id),
                   content = CASE WHEN EXCLUDED.content ->> 'type' <> '${UNKNOWN_CONTENT_TYPE}'
                                   AND conversation_messages.content_purged_at IS NULL THEN EXCLUDED.content
                                  ELSE conversation_messages.content END`;
      // The content a failover route's send kept goes with its first status, taken when the status
      // does not say what was sent itself.
      const [taken] =
        m.direction === 'out' && m.messageId
          ? await sqlRows<{ content: ConversationContent }>(
              em,
              `DELETE FROM outbound_contents WHERE message_id = $1 AND account_id = $2 RETURNING content`,
              [m.messageId, thread.accountId],
            )
          : [];
      const kept = m.content.type === UNKNOWN_CONTENT_TYPE ? taken : undefined;
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
          JSON.stringify(kept?.content ?? m.content),
          m.at,
        ],
      );
      if (!row?.inserted) {
        if (row) await this.refreshPreviews(em, [row.id]);
        return { conversation, row: null };
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
      return { conversation, row: message };
    });
  }

  /**
   * Keeps the content of a send whose channel the api chooses (a failover route) until its first
   * status records it in the thread of the channel it went on; the purge removes what is left.
   */
  async keepContent(accountId: string, messageId: string, content: ConversationContent): Promise<void> {
    await this.ds.query(
      `INSERT INTO outbound_contents (message_id, account_id, content) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
      [messageId, accountId, JSON.stringify(content)],
    );
  }

  /** Keeps the conversations' last-message previews in step with messages that changed (status, content). */
  private async refreshPreviews(em: DataSource | EntityManager, messageIds: string[]): Promise<void> {
    await em.query(
      `UPDATE conversations c SET last_message = p.preview, updated_at = now()
         FROM (SELECT ${PREVIEW} AS preview, m.id, m.conversation_id FROM conversation_messages m
                WHERE m.id = ANY($1::uuid[])) p
        WHERE c.id = p.conversation_id AND c.last_message ->> 'id' = p.id::text
          AND c.last_message IS DISTINCT FROM p.preview`,
      [messageIds],
    );
  }

  /**
   * The conversations of many (account, connection, contact) threads in two statements of the
   * transaction that adds their messages, each made with its first message (a concurrent make finds
   * the first); keyed by threadKey.
   */
  private async openIn(em: EntityManager, threads: NewThread[]): Promise<Map<string, ConversationRow>> {
    const unique = [...new Map(threads.map((t) => [threadKey(t.accountId, t.connectionId, t.contactId), t])).entries()]
      // One order for every writer, so that two batches never wait on each other's rows crosswise.
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, t]) => t);
    if (!unique.length) return new Map();
    const col = <K extends keyof NewThread>(k: K) => unique.map((t) => t[k]);
    await em.query(
      `INSERT INTO conversations (id, account_id, connection_id, channel, contact_id, address, sender)
       SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::uuid[], $6::text[], $7::text[])
       ON CONFLICT (account_id, connection_id, contact_id) DO UPDATE SET sender = EXCLUDED.sender
         WHERE EXCLUDED.sender IS NOT NULL AND conversations.sender IS DISTINCT FROM EXCLUDED.sender`,
      [
        unique.map(() => uuidv7()),
        col('accountId'),
        col('connectionId'),
        col('channel'),
        col('contactId'),
        col('address'),
        col('sender'),
      ],
    );
    const rows = await sqlRows<ConversationRow>(
      em,
      `SELECT c.* FROM unnest($1::uuid[], $2::uuid[], $3::uuid[]) AS x(account_id, connection_id, contact_id)
         JOIN conversations c ON c.account_id = x.account_id AND c.connection_id = x.connection_id
                             AND c.contact_id = x.contact_id`,
      [col('accountId'), col('connectionId'), col('contactId')],
    );
    return new Map(rows.map((r) => [threadKey(r.account_id, r.connection_id, r.contact_id), r]));
  }

  /**
   * Adds many inbound messages at once, each once (a repeat of a stored provider id, or one twice in
   * the batch, is left out): one insert, then each conversation touched moved on by what it got
   * (unread count, window, last message), in one transaction that also makes the conversations new
   * to it. The conversations by threadKey, and the new rows in the order given.
   */
  async addInbound(
    items: { thread: NewThread; m: NewConversationMessage }[],
  ): Promise<{ conversations: Map<string, ConversationRow>; rows: ConversationMessageRow[] }> {
    if (!items.length) return { conversations: new Map(), rows: [] };
    return this.ds.transaction(async (em) => {
      const conversations = await this.openIn(
        em,
        items.map((it) => it.thread),
      );
      const rows = items.map(({ thread: t, m }) => ({
        id: uuidv7(),
        conversation_id: conversations.get(threadKey(t.accountId, t.connectionId, t.contactId))!.id,
        account_id: t.accountId,
        provider_message_id: m.providerMessageId,
        content: m.content,
        at: m.at.toISOString(),
      }));
      const ids = [...new Set(rows.map((r) => r.conversation_id))].sort();
      // Locked in one order first: two batches touching the same conversations wait, never deadlock.
      await em.query(`SELECT 1 FROM conversations WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE`, [ids]);
      const inserted = await sqlRows<ConversationMessageRow>(
        em,
        `INSERT INTO conversation_messages (id, conversation_id, account_id, direction, provider_message_id, message_id,
                                            status, content, channel_timestamp)
         SELECT x.id, x.conversation_id, x.account_id, 'in', x.provider_message_id, NULL, 'RECEIVED', x.content, x.at
           FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, conversation_id uuid, account_id uuid,
                                                   provider_message_id text, content jsonb, at timestamptz)
         ON CONFLICT (conversation_id, direction, provider_message_id) WHERE direction = 'in' DO NOTHING
         RETURNING ${MESSAGE_COLUMNS}`,
        [JSON.stringify(rows)],
      );
      // Per conversation: how many came, and the latest of them by channel time (a tie: the later given).
      const order = new Map(rows.map((r, i) => [r.id, i]));
      const moved = new Map<string, { id: string; n: number; latest: ConversationMessageRow }>();
      for (const row of inserted) {
        const seen = moved.get(row.conversation_id);
        if (!seen) {
          moved.set(row.conversation_id, { id: row.conversation_id, n: 1, latest: row });
          continue;
        }
        seen.n++;
        const a = new Date(row.channel_timestamp).getTime();
        const b = new Date(seen.latest.channel_timestamp).getTime();
        if (a > b || (a === b && order.get(row.id)! > order.get(seen.latest.id)!)) seen.latest = row;
      }
      if (moved.size) {
        const latest = [...moved.values()].map((u) => ({
          id: u.id,
          n: u.n,
          message: u.latest.id,
          at: new Date(u.latest.channel_timestamp).toISOString(),
          provider_id: u.latest.provider_message_id,
        }));
        await em.query(
          `UPDATE conversations c SET
              unread_count = c.unread_count + u.n,
              last_inbound_at = CASE WHEN c.last_inbound_at IS NULL OR c.last_inbound_at <= u.at THEN u.at
                                     ELSE c.last_inbound_at END,
              last_inbound_provider_id = CASE WHEN c.last_inbound_at IS NULL OR c.last_inbound_at <= u.at
                                              THEN u.provider_id ELSE c.last_inbound_provider_id END,
              last_message = CASE WHEN c.last_message_at IS NULL OR c.last_message_at <= u.at
                                  THEN (SELECT ${PREVIEW} FROM conversation_messages m WHERE m.id = u.message)
                                  ELSE c.last_message END,
              last_message_at = greatest(c.last_message_at, u.at),
              updated_at = now()
             FROM jsonb_to_recordset($1::jsonb) AS u(id uuid, n int, message uuid, at timestamptz, provider_id text)
            WHERE c.id = u.id`,
          [JSON.stringify(latest)],
        );
      }
      return { conversations, rows: inserted.sort((a, b) => order.get(a.id)! - order.get(b.id)!) };
    });
  }

  /**
   * Moves many outbound messages' statuses forward in one statement (each message once: give its
   * highest status), filling in the content a status says when the message's is not known (never
   * content the purge removed), and their conversations' previews with them; the message ids some
   * conversation has.
   */
  async advanceMany(
    statuses: {
      messageId: string;
      status: MessageStatus;
      providerMessageId: string | null;
      content?: ConversationContent | null;
    }[],
  ): Promise<Set<string>> {
    if (!statuses.length) return new Set();
    const sorted = [...statuses].sort((a, b) => (a.messageId < b.messageId ? -1 : 1));
    const rows = await sqlRows<{ id: string; message_id: string }>(
      this.ds,
      `UPDATE conversation_messages m SET status = CASE WHEN ${rank('x.status')} > ${rank('m.status')} THEN x.status
                                                     ELSE m.status END,
              provider_message_id = coalesce(m.provider_message_id, x.provider_id),
              content = CASE WHEN x.content IS NOT NULL AND m.content ->> 'type' = '${UNKNOWN_CONTENT_TYPE}'
                              AND m.content_purged_at IS NULL THEN x.content ELSE m.content END
         FROM unnest($1::uuid[], $2::text[], $3::text[], $4::jsonb[]) AS x(message_id, status, provider_id, content)
        WHERE m.message_id = x.message_id RETURNING m.id, m.message_id`,
      [
        sorted.map((s) => s.messageId),
        sorted.map((s) => s.status),
        sorted.map((s) => s.providerMessageId),
        sorted.map((s) => (s.content ? JSON.stringify(s.content) : null)),
      ],
    );
    if (rows.length)
      await this.refreshPreviews(
        this.ds,
        rows.map((r) => r.id),
      );
    return new Set(rows.map((r) => r.message_id));
  }

  /** The account's conversation, or null (another account's is not found either). */
  async find(accountId: string, id: string): Promise<ConversationRow | null> {
    const [row] = await sqlRows<ConversationRow>(
      this.ds,
      `SELECT ${CONVERSATION} FROM conversations c ${CONTACT_JOIN} WHERE c.id = $1 AND c.account_id = $2`,
      [id, accountId],
    );
    return row ?? null;
  }

  /**
   * A page of the account's conversations, the latest updated first; `after` is a cursor's
   * (updated_at, id). Each filter has an index in this order (docs/conversations.md, Paging), so a
   * page reads its rows and no more, however deep its cursor: status, assignee and channel lead
   * their own (account, value, updated_at, id), unread a partial one, a label the labels' GIN
   * index when the label is rare, updated_since a range of the account's.
   */
  async page(
    accountId: string,
    f: ConversationFilter,
    after: { updatedAt: string; id: string } | null,
    limit: number,
  ): Promise<{ rows: (ConversationRow & { cursor_at: string })[]; more: boolean }> {
    const { sql, params } = conversationPageQuery(accountId, f, after, limit);
    type Row = ConversationRow & { cursor_at: string };
    // How many conversations have a label differs by label (a few, or most): planned for the label
    // given each time, it is read from the labels' index when rare, along the list when common.
    if (f.label) planEachTime(sql);
    const rows = await sqlRows<Row>(this.ds, sql, params);
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
    const [cmp, order] = cursor.after ? ['>', 'ASC'] : ['<', 'DESC'];
    let rows: ConversationMessageRow[];
    if (at) {
      // The cursor message read by its id alone (the primary key, however long the conversation),
      // its exact time as text (a Date would lose the microseconds); then the page from it along
      // (conversation_id, channel_timestamp, id).
      const [known] = await sqlRows<{ conversation_id: string; at: string }>(
        this.ds,
        `SELECT conversation_id, ${EXACT('channel_timestamp')} AS at FROM conversation_messages WHERE id = $1`,
        [at],
      );
      if (known?.conversation_id !== conversationId) return null;
      rows = await sqlRows<ConversationMessageRow>(
        this.ds,
        `SELECT ${MESSAGE_COLUMNS} FROM conversation_messages
          WHERE conversation_id = $1 AND (channel_timestamp, id) ${cmp} ($2::timestamptz, $3::uuid)
          ORDER BY channel_timestamp ${order}, id ${order} LIMIT $4`,
        [conversationId, known.at, at, limit + 1],
      );
    } else {
      rows = await sqlRows<ConversationMessageRow>(
        this.ds,
        `SELECT ${MESSAGE_COLUMNS} FROM conversation_messages WHERE conversation_id = $1
          ORDER BY channel_timestamp DESC, id DESC LIMIT $2`,
        [conversationId, limit + 1],
      );
    }
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
