import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';

/** Course events, status events and their message links are kept this long (also the dedupe window). */
export const COURSE_RETENTION_DAYS = 7;

export type CourseEventStatus = 'received' | 'processed' | 'rule_failed' | 'ignored';
export const COURSE_EVENT_STATUSES: readonly CourseEventStatus[] = ['received', 'processed', 'rule_failed', 'ignored'];

export interface CourseEventRow {
  id: string;
  connection_id: string;
  account_id: string;
  event_key: string;
  type: string | null;
  status: CourseEventStatus;
  reason: string | null;
  body: Record<string, unknown> | null;
  message_ids: string[];
  attempts: number;
  received_at: Date;
  processed_at: Date | null;
}

export interface CourseRuleRow {
  id: string;
  account_id: string;
  connection_id: string;
  event_type: string;
  channel: 'whatsapp' | 'telegram' | 'max';
  template: string;
  language: string | null;
  recipient_field: string;
  params: string[];
  /** `wait_for_reply`: how long the student's reply is waited for; null: not at all. */
  wait_for_reply_seconds: number | null;
  created_at: Date;
}

export interface CourseMessageRow {
  message_id: string;
  connection_id: string;
  course_event_id: string;
  event_id: string;
  student: string;
}

export interface OutboxRow {
  id: string;
  connection_id: string;
  student: string;
  message_id: string;
  status: string;
  body: string;
  attempts: number;
  created_at: Date;
}

/** Position of a status in a message's life: a status at or below one already queued is never queued after it. */
export const STATUS_RANK: Record<string, number> = { sent: 1, delivered: 2, read: 3, failed: 4 };

/** The only place that queries the course tables. */
@Injectable()
export class CourseRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** The rows an UPDATE … RETURNING gave (the driver answers UPDATE and DELETE with [rows, count]). */
  private async updateReturning<T>(sql: string, params: unknown[]): Promise<T[]> {
    const [rows] = (await this.ds.query(sql, params)) as [T[], number];
    return rows;
  }

  // ---- events ----------------------------------------------------------------------------------

  /** Stores an event once per (connection, key): the stored row and whether this call stored it. */
  async insertEvent(row: {
    connectionId: string;
    accountId: string;
    eventKey: string;
    type: string | null;
    body: Record<string, unknown>;
  }): Promise<{ row: CourseEventRow; created: boolean }> {
    const inserted = (await this.ds.query(
      `INSERT INTO course_events (id, connection_id, account_id, event_key, type, status, body)
       VALUES ($1, $2, $3, $4, $5, 'received', $6)
       ON CONFLICT ON CONSTRAINT course_events_key DO NOTHING
       RETURNING *`,
      [uuidv7(), row.connectionId, row.accountId, row.eventKey, row.type, JSON.stringify(row.body)],
    )) as CourseEventRow[];
    if (inserted.length) return { row: inserted[0], created: true };
    const [existing] = (await this.ds.query(`SELECT * FROM course_events WHERE connection_id = $1 AND event_key = $2`, [
      row.connectionId,
      row.eventKey,
    ])) as CourseEventRow[];
    return { row: existing, created: false };
  }

  /** Takes up to `limit` due events for `leaseMs`; another worker takes them only once the lease is over. */
  claimDueEvents(limit: number, leaseMs: number): Promise<CourseEventRow[]> {
    return this.updateReturning(
      `UPDATE course_events SET claimed_until = now() + $2 * interval '1 millisecond', attempts = attempts + 1
       WHERE id IN (
         SELECT id FROM course_events
         WHERE status = 'received' AND next_attempt_at <= now() AND (claimed_until IS NULL OR claimed_until < now())
         ORDER BY received_at LIMIT $1 FOR UPDATE SKIP LOCKED)
       RETURNING *`,
      [limit, leaseMs],
    );
  }

  /** The event's outcome; its body (personal data) is dropped. */
  async finishEvent(
    id: string,
    status: Exclude<CourseEventStatus, 'received'>,
    reason: string | null,
    messageIds: string[],
  ) {
    await this.ds.query(
      `UPDATE course_events SET status = $2, reason = $3, message_ids = $4, body = NULL, claimed_until = NULL,
         processed_at = now() WHERE id = $1`,
      [id, status, reason?.slice(0, 1000) ?? null, messageIds],
    );
  }

  async retryEventLater(id: string, delayMs: number, reason: string): Promise<void> {
    await this.ds.query(
      `UPDATE course_events SET claimed_until = NULL, reason = $3,
         next_attempt_at = now() + $2 * interval '1 millisecond' WHERE id = $1`,
      [id, delayMs, reason.slice(0, 1000)],
    );
  }

  /** The account's events, newest first, after the cursor (an event id). */
  listEvents(
    accountId: string,
    q: { connectionId?: string; status?: string; cursor?: string; limit: number },
  ): Promise<CourseEventRow[]> {
    const where = ['account_id = $1'];
    const args: unknown[] = [accountId];
    if (q.connectionId) where.push(`connection_id = $${args.push(q.connectionId)}`);
    if (q.status) where.push(`status = $${args.push(q.status)}`);
    if (q.cursor) where.push(`id < $${args.push(q.cursor)}`);
    return this.ds.query(
      `SELECT id, connection_id, account_id, event_key, type, status, reason, message_ids, attempts, received_at, processed_at
       FROM course_events WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT $${args.push(q.limit)}`,
      args,
    ) as Promise<CourseEventRow[]>;
  }

  // ---- rules -----------------------------------------------------------------------------------

  /**
   * Inserts a rule unless the account has `caps.perAccount` rules or the connection's event type
   * `caps.perEventType` (then says which cap was reached); counted under a lock per account.
   */
  insertRule(
    row: Omit<CourseRuleRow, 'id' | 'created_at'>,
    caps: { perAccount: number; perEventType: number },
  ): Promise<CourseRuleRow | 'account' | 'event_type'> {
    return this.ds.transaction(async (em: EntityManager) => {
      await em.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`course_rules:${row.account_id}`]);
      const [counts] = (await em.query(
        `SELECT count(*)::int AS account,
           count(*) FILTER (WHERE connection_id = $2 AND event_type = $3)::int AS event_type
         FROM course_rules WHERE account_id = $1`,
        [row.account_id, row.connection_id, row.event_type],
      )) as { account: number; event_type: number }[];
      if (counts.account >= caps.perAccount) return 'account';
      if (counts.event_type >= caps.perEventType) return 'event_type';
      const [rule] = (await em.query(
        `INSERT INTO course_rules (id, account_id, connection_id, event_type, channel, template, language, recipient_field,
                                   params, wait_for_reply_seconds)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING *`,
        [
          uuidv7(),
          row.account_id,
          row.connection_id,
          row.event_type,
          row.channel,
          row.template,
          row.language,
          row.recipient_field,
          JSON.stringify(row.params),
          row.wait_for_reply_seconds,
        ],
      )) as CourseRuleRow[];
      return rule;
    });
  }

  /** Every rule of the account, newest first: the per-account cap bounds them, and each one that can fire is listed. */
  listRules(accountId: string): Promise<CourseRuleRow[]> {
    return this.ds.query(`SELECT * FROM course_rules WHERE account_id = $1 ORDER BY created_at DESC, id DESC`, [
      accountId,
    ]) as Promise<CourseRuleRow[]>;
  }

  async findRule(id: string): Promise<CourseRuleRow | null> {
    const [rule] = (await this.ds.query(`SELECT * FROM course_rules WHERE id = $1`, [id])) as CourseRuleRow[];
    return rule ?? null;
  }

  async deleteRule(id: string): Promise<void> {
    await this.ds.query(`DELETE FROM course_rules WHERE id = $1`, [id]);
  }

  /** The rules an event of this type on this connection matches, oldest first, at most `limit` (its fan-out). */
  matchingRules(connectionId: string, eventType: string, limit: number): Promise<CourseRuleRow[]> {
    return this.ds.query(
      `SELECT * FROM course_rules WHERE connection_id = $1 AND event_type = $2 ORDER BY created_at, id LIMIT $3`,
      [connectionId, eventType, limit],
    ) as Promise<CourseRuleRow[]>;
  }

  // ---- messages and the outbox -----------------------------------------------------------------

  async recordMessage(row: CourseMessageRow): Promise<void> {
    await this.ds.query(
      `INSERT INTO course_messages (message_id, connection_id, course_event_id, event_id, student)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT (message_id) DO NOTHING`,
      [row.message_id, row.connection_id, row.course_event_id, row.event_id, row.student],
    );
  }

  /**
   * What the status events of these messages need, read in one statement: the course links of the
   * messages (messages no course event made have none), by message id, and which of these users
   * have a course event (of an account billed to them) being turned into sends right now. A link is
   * written before its event is finished, so in the one snapshot a message without a link is either
   * no course event's or its event is still being sent; two reads one after the other could miss
   * both (the link written and the event finished between them).
   */
  async statusLookups(
    messageIds: string[],
    userIds: string[],
  ): Promise<{ links: Map<string, CourseMessageRow>; sending: Set<string> }> {
    if (messageIds.length === 0 && userIds.length === 0) return { links: new Map(), sending: new Set() };
    const rows = (await this.ds.query(
      `SELECT message_id, connection_id, course_event_id, event_id, student, NULL::uuid AS sending_user
         FROM course_messages WHERE message_id = ANY($1::text[])
       UNION ALL
       SELECT DISTINCT NULL, NULL::uuid, NULL::uuid, NULL, NULL, a.user_id
         FROM course_events e JOIN accounts a ON a.id = e.account_id
        WHERE a.user_id = ANY($2::uuid[]) AND e.status = 'received' AND e.claimed_until > now()`,
      [[...new Set(messageIds)], [...new Set(userIds)]],
    )) as (CourseMessageRow & { sending_user: string | null })[];
    const links = new Map<string, CourseMessageRow>();
    const sending = new Set<string>();
    for (const { sending_user, ...link } of rows) {
      if (sending_user) sending.add(sending_user);
      else links.set(link.message_id, link);
    }
    return { links, sending };
  }

  /**
   * Queues a status event for posting unless the message already has this status or a later one
   * queued (READ and FAILED end a message): a status that arrives late is dropped, never posted
   * after a later one. One message's statuses are queued one at a time (an advisory lock).
   */
  async enqueueStatus(row: { connectionId: string; student: string; messageId: string; status: string; body: string }) {
    const rank = STATUS_RANK[row.status];
    return this.ds.transaction(async (em: EntityManager) => {
      await em.query(`SELECT pg_advisory_xact_lock(hashtext('course_outbox:' || $1))`, [row.messageId]);
      const inserted = (await em.query(
        `INSERT INTO course_outbox (connection_id, student, message_id, status, rank, body)
         SELECT $1, $2, $3, $4, $5, $6
         WHERE NOT EXISTS (SELECT 1 FROM course_outbox WHERE message_id = $3 AND (rank >= $5 OR status IN ('read', 'failed')))
         ON CONFLICT ON CONSTRAINT course_outbox_step DO NOTHING RETURNING id`,
        [row.connectionId, row.student, row.messageId, row.status, rank, row.body],
      )) as unknown[];
      return inserted.length > 0;
    });
  }

  /**
   * Takes the due heads of students' queues: only the oldest pending status event of a (connection,
   * student) is ever taken, so one student's events go out in order; the lease keeps two workers
   * from posting the same one.
   */
  claimDueOutbox(limit: number, leaseMs: number): Promise<OutboxRow[]> {
    return this.updateReturning(
      `WITH heads AS (
         SELECT DISTINCT ON (connection_id, student) id, next_attempt_at, claimed_until
         FROM course_outbox WHERE state = 'pending' ORDER BY connection_id, student, id)
       UPDATE course_outbox o SET claimed_until = now() + $2 * interval '1 millisecond', attempts = o.attempts + 1
       WHERE o.id IN (
         SELECT id FROM heads WHERE next_attempt_at <= now() AND (claimed_until IS NULL OR claimed_until < now())
         ORDER BY id LIMIT $1)
       AND o.state = 'pending' AND (o.claimed_until IS NULL OR o.claimed_until < now())
       RETURNING o.id, o.connection_id, o.student, o.message_id, o.status, o.body, o.attempts, o.created_at`,
      [limit, leaseMs],
    );
  }

  async finishOutbox(id: string, state: 'delivered' | 'abandoned', error: string | null): Promise<void> {
    await this.ds.query(
      `UPDATE course_outbox SET state = $2, last_error = $3, claimed_until = NULL, done_at = now() WHERE id = $1`,
      [id, state, error?.slice(0, 500) ?? null],
    );
  }

  async retryOutboxLater(id: string, delayMs: number, error: string): Promise<void> {
    await this.ds.query(
      `UPDATE course_outbox SET claimed_until = NULL, last_error = $3,
         next_attempt_at = now() + $2 * interval '1 millisecond' WHERE id = $1`,
      [id, delayMs, error.slice(0, 500)],
    );
  }

  /** Forgets what is older than the retention: events (and so their dedupe keys), message links, status events. */
  async purgeExpired(): Promise<{ events: number; messages: number; outbox: number }> {
    const cutoff = `now() - interval '${COURSE_RETENTION_DAYS} days'`;
    const count = async (sql: string) => ((await this.ds.query(sql)) as [unknown[], number])[1];
    return {
      events: await count(`DELETE FROM course_events WHERE received_at < ${cutoff}`),
      messages: await count(`DELETE FROM course_messages WHERE created_at < ${cutoff}`),
      outbox: await count(`DELETE FROM course_outbox WHERE created_at < ${cutoff}`),
    };
  }
}
