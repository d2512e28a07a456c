import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { sqlRows } from '@app/database';
import type { RouteAttempt } from './failover.service';

/** The only place that queries message_attempts and failover_steps. */
@Injectable()
export class FailoverRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** The first attempt of a message sent over a route, and the steps still to try. */
  async keep(em: EntityManager, id: string, rest: RouteAttempt[]): Promise<void> {
    await em.query(`INSERT INTO message_attempts (message_id, parent_id, position) VALUES ($1, $1, 1)`, [id]);
    await em.query(
      `INSERT INTO failover_steps (parent_id, position, step)
       SELECT $1, p, s FROM unnest($2::integer[], $3::jsonb[]) AS x(p, s)`,
      [id, rest.map((_, i) => i + 2), rest.map((r) => JSON.stringify(r))],
    );
  }

  /** A later attempt begun: it joins its message. */
  async began(em: EntityManager, parent: string, position: number, id: string): Promise<void> {
    await em.query(`INSERT INTO message_attempts (message_id, parent_id, position) VALUES ($1, $2, $3)`, [
      id,
      parent,
      position,
    ]);
  }

  /** The positions of a message's steps after `position`, in order. */
  async positions(parent: string, position: number): Promise<number[]> {
    const rows = await sqlRows<{ position: number }>(
      this.ds,
      `SELECT position FROM failover_steps WHERE parent_id = $1 AND position > $2 ORDER BY position`,
      [parent, position],
    );
    return rows.map((r) => r.position);
  }

  /**
   * Takes a step to start it: only one caller gets it (the settlement pass and the status handler
   * may both try); null when another took it.
   */
  async claim(parent: string, position: number): Promise<RouteAttempt | null> {
    const [row] = await sqlRows<{ step: RouteAttempt }>(
      this.ds,
      `DELETE FROM failover_steps WHERE parent_id = $1 AND position = $2 RETURNING step`,
      [parent, position],
    );
    return row?.step ?? null;
  }

  /** Puts back a claimed step whose attempt could not be started (the pass tries it again). */
  async restore(parent: string, position: number, step: RouteAttempt): Promise<void> {
    await this.ds.query(
      `INSERT INTO failover_steps (parent_id, position, step) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
      [parent, position, JSON.stringify(step)],
    );
  }

  async dropSteps(parent: string): Promise<void> {
    await this.ds.query(`DELETE FROM failover_steps WHERE parent_id = $1`, [parent]);
  }

  /** Drops what the messages of these attempts had left to try. */
  async dropStepsOfAttempts(ids: string[]): Promise<void> {
    await this.ds.query(
      `DELETE FROM failover_steps WHERE parent_id IN (SELECT parent_id FROM message_attempts WHERE message_id = ANY($1::text[]))`,
      [ids],
    );
  }

  async attemptsOf(ids: string[]): Promise<Map<string, { parent: string; position: number }>> {
    if (!ids.length) return new Map();
    const rows = await sqlRows<{ message_id: string; parent_id: string; position: number }>(
      this.ds,
      `SELECT message_id, parent_id, position FROM message_attempts WHERE message_id = ANY($1::text[])`,
      [ids],
    );
    return new Map(rows.map((r) => [r.message_id, { parent: r.parent_id, position: r.position }]));
  }

  /** The message an attempt belongs to (its first attempt's id), or null for a message sent to one channel. */
  async parentOf(id: string): Promise<string | null> {
    const [row] = await sqlRows<{ parent_id: string }>(
      this.ds,
      `SELECT parent_id FROM message_attempts WHERE message_id = $1`,
      [id],
    );
    return row?.parent_id ?? null;
  }

  /** A message's attempts in order. */
  async attemptIds(parent: string): Promise<string[]> {
    const rows = await sqlRows<{ message_id: string }>(
      this.ds,
      `SELECT message_id FROM message_attempts WHERE parent_id = $1 ORDER BY position`,
      [parent],
    );
    return rows.map((r) => r.message_id);
  }

  /**
   * The last attempts of messages that still have steps to try, older than `olderThanMs`: those whose
   * move to the next channel did not happen (the process stopped, the database failed meanwhile).
   */
  lastAttemptsWaiting(olderThanMs: number, limit: number): Promise<{ message_id: string }[]> {
    return sqlRows(
      this.ds,
      `SELECT last.message_id FROM (
         SELECT DISTINCT ON (a.parent_id) a.message_id
           FROM message_attempts a
          WHERE a.parent_id IN (
            SELECT parent_id FROM failover_steps
             WHERE created_at < now() - make_interval(secs => $1::double precision / 1000))
          ORDER BY a.parent_id, a.position DESC
       ) last JOIN messages m ON m.id = last.message_id AND m.status = 'FAILED'
       LIMIT $2`,
      [olderThanMs, limit],
    );
  }
}
