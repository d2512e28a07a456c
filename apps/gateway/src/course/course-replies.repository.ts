import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { sqlRows } from '@app/database';

/** A message sent for a rule with `wait_for_reply`, waiting for the student's answer until `due_at`. */
export interface CourseWaitRow {
  message_id: string;
  account_id: string;
  connection_id: string;
  channel: string;
  student: string;
  event_id: string;
  state: 'waiting' | 'replied' | 'no_reply';
  due_at: Date;
  created_at: Date;
}

/** A course connection's triggers: keywords that start an event, and the event any other message starts. */
export interface CourseTriggersRow {
  connection_id: string;
  account_id: string;
  keyword_triggers: { keyword: string; event: string }[];
  on_message: string | null;
  updated_at: Date;
}

/** Where an inbound message came in: its channel and the account connection it reached. */
export interface InboundPlace {
  channel: string;
  /** The bot connection's id (Telegram, MAX), when the callback named one. */
  connectionId: string | null;
  /** The WhatsApp app, for a WhatsApp message. */
  appId: string | null;
}

/** A post for the platform, queued behind the student's other posts (course_outbox). */
export interface CoursePost {
  connectionId: string;
  student: string;
  /** With `kind`, what makes the post unique: the same post is queued once. */
  key: string;
  kind: 'replied' | 'no_reply' | 'trigger';
  body: string;
}

/** The live account connections an inbound message of `place` reached (SQL over the parameters given). */
const REACHED = (channel: string, connectionId: string, appId: string) =>
  `SELECT ch.account_id FROM connections ch WHERE ch.channel = ${channel} AND ch.state <> 'disconnected'
     AND (ch.id::text = ${connectionId} OR (ch.channel = 'whatsapp' AND ch.app_id::text = ${appId}))`;

/** How studentsWaiting names a student of a channel. */
export const studentKey = (student: string, channel: string) => `${channel}|${student}`;

/** The only place that queries course waits and triggers. */
@Injectable()
export class CourseRepliesRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async startWait(row: Omit<CourseWaitRow, 'state'>): Promise<void> {
    await this.ds.query(
      `INSERT INTO course_waits (message_id, account_id, connection_id, channel, student, event_id, due_at, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (message_id) DO NOTHING`,
      [
        row.message_id,
        row.account_id,
        row.connection_id,
        row.channel,
        row.student,
        row.event_id,
        row.due_at,
        row.created_at,
      ],
    );
  }

  /**
   * Ends, as answered by the inbound message `providerId`, every wait of the student on the
   * channel of an account the message reached that was started before it was written (`writtenAt`)
   * and is not past its due time; `post` makes each one's post, queued in the same transaction.
   * A wait ends once. `ended`: the waits it ended; `answeredBefore`: the same message (delivered
   * again) ended waits already. A student with no wait (most messages) costs one indexed read.
   */
  async answer(
    place: InboundPlace,
    student: string,
    providerId: string,
    writtenAt: Date,
    now: Date,
    post: (w: CourseWaitRow) => CoursePost,
  ): Promise<{ ended: CourseWaitRow[]; answeredBefore: boolean }> {
    const [seen] = await sqlRows<{ open: boolean | null; answered: boolean | null }>(
      this.ds,
      `SELECT bool_or(state = 'waiting') AS open, bool_or(reply_provider_id = $3) AS answered
         FROM course_waits WHERE student = $1 AND channel = $2`,
      [student, place.channel, providerId],
    );
    if (seen?.answered) return { ended: [], answeredBefore: true };
    if (!seen?.open) return { ended: [], answeredBefore: false };
    return this.ds.transaction(async (em) => {
      const ended = await sqlRows<CourseWaitRow>(
        em,
        `UPDATE course_waits SET state = 'replied', reply_provider_id = $4, done_at = $5
          WHERE state = 'waiting' AND channel = $1 AND student = $2 AND due_at > $5 AND created_at <= $6
            AND account_id IN (${REACHED('$1', '$3', '$7')})
          RETURNING *`,
        [place.channel, student, place.connectionId ?? '', providerId, now, writtenAt, place.appId ?? ''],
      );
      for (const w of ended) await this.enqueue(post(w), em);
      return { ended, answeredBefore: false };
    });
  }

  /** Which of the students (studentKey) have a wait of any state on their channel: one indexed read for all. */
  async studentsWaiting(students: { student: string; channel: string }[]): Promise<Set<string>> {
    if (!students.length) return new Set();
    const rows = await sqlRows<{ student: string; channel: string }>(
      this.ds,
      `SELECT DISTINCT w.student, w.channel FROM unnest($1::text[], $2::text[]) AS x(student, channel)
         JOIN course_waits w ON w.student = x.student AND w.channel = x.channel`,
      [students.map((s) => s.student), students.map((s) => s.channel)],
    );
    return new Set(rows.map((r) => studentKey(r.student, r.channel)));
  }

  /** Ends up to `limit` waits past their due time as `no_reply`, each with its post queued in the same transaction. */
  async expireDue(now: Date, limit: number, post: (w: CourseWaitRow) => CoursePost): Promise<CourseWaitRow[]> {
    // Most passes find nothing due: one indexed read, no transaction.
    const [due] = await sqlRows<{ one: number }>(
      this.ds,
      `SELECT 1 AS one FROM course_waits WHERE state = 'waiting' AND due_at <= $1 LIMIT 1`,
      [now],
    );
    if (!due) return [];
    return this.ds.transaction(async (em) => {
      const ended = await sqlRows<CourseWaitRow>(
        em,
        `UPDATE course_waits SET state = 'no_reply', done_at = $1
          WHERE message_id IN (
            SELECT message_id FROM course_waits WHERE state = 'waiting' AND due_at <= $1
             ORDER BY due_at LIMIT $2 FOR UPDATE SKIP LOCKED)
          RETURNING *`,
        [now, limit],
      );
      for (const w of ended) await this.enqueue(post(w), em);
      return ended;
    });
  }

  /** The triggers of the live course connections of the accounts an inbound message of `place` reached. */
  triggersFor(place: InboundPlace): Promise<CourseTriggersRow[]> {
    return sqlRows<CourseTriggersRow>(
      this.ds,
      `SELECT t.* FROM course_triggers t JOIN connections c ON c.id = t.connection_id AND c.state <> 'disconnected'
        WHERE t.account_id IN (${REACHED('$1', '$2', '$3')})
        ORDER BY t.connection_id`,
      [place.channel, place.connectionId ?? '', place.appId ?? ''],
    );
  }

  async triggers(connectionId: string): Promise<CourseTriggersRow | null> {
    const [row] = await sqlRows<CourseTriggersRow>(this.ds, `SELECT * FROM course_triggers WHERE connection_id = $1`, [
      connectionId,
    ]);
    return row ?? null;
  }

  async setTriggers(row: Omit<CourseTriggersRow, 'updated_at'>, at: Date): Promise<CourseTriggersRow> {
    const [saved] = await sqlRows<CourseTriggersRow>(
      this.ds,
      `INSERT INTO course_triggers (connection_id, account_id, keyword_triggers, on_message, updated_at)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (connection_id) DO UPDATE SET keyword_triggers = $3, on_message = $4, updated_at = $5
       RETURNING *`,
      [row.connection_id, row.account_id, JSON.stringify(row.keyword_triggers), row.on_message, at],
    );
    return saved;
  }

  /** Queues a post once (a repeat of the same key and kind is dropped); false when it was queued already. */
  async enqueue(p: CoursePost, db: DataSource | EntityManager = this.ds): Promise<boolean> {
    const rows = await sqlRows<{ id: string }>(
      db,
      `INSERT INTO course_outbox (connection_id, student, message_id, status, rank, body)
       VALUES ($1, $2, $3, $4, 0, $5) ON CONFLICT ON CONSTRAINT course_outbox_step DO NOTHING RETURNING id`,
      [p.connectionId, p.student, p.key, p.kind, p.body],
    );
    return rows.length > 0;
  }

  /** Forgets ended waits older than `days` (a wait is never longer than the course retention). */
  async purgeEnded(days: number): Promise<number> {
    const [, count] = (await this.ds.query(
      `DELETE FROM course_waits WHERE created_at < now() - $1 * interval '1 day' AND state <> 'waiting'`,
      [days],
    )) as [unknown[], number];
    return count;
  }
}
