import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Channel, MessageAttempt, MessageReport, OutboundMessage, unixSeconds } from '@app/contracts';
import { sqlRows } from '@app/database';
import { ProblemError } from '@app/server';
import { MessageEntity } from './message.entity';
import { MessagesRepository } from './messages.repository';
import { MessagesService, PreparedSend } from './messages.service';

/** One channel of a send over a failover route, ready to accept. */
export interface RouteAttempt {
  channel: Channel;
  /** The WhatsApp app that sends it; null on a bot channel. */
  appId: number | null;
  sender: OutboundMessage['sender'];
  recipient: string;
  prepared: PreparedSend;
}

/**
 * Failures another channel can fix (docs/failover.md): the person is not on that channel
 * (WhatsApp 131026, a chat not found), blocked the bot, no receipt came in time, or the channel
 * itself failed. Any other failure (a template the channel refused, a bad token) ends the message.
 */
export const FIXABLE_FAILURES: ReadonlySet<string> = new Set([
  '131026',
  'recipient_not_found',
  'recipient_blocked',
  'no_receipt',
  'channel_error',
  'channel_unreachable',
  'channel_timeout',
]);

/** A consent refusal moves a route's accept on to its next channel; anything else stops it. */
const consentRefused = (err: unknown) =>
  err instanceof ProblemError && (err.slug === 'recipient-opted-out' || err.slug === 'consent-required');

/**
 * Sends to a contact over an ordered list of channels under one message id (docs/failover.md).
 * Each attempt is a message of its own (its hold, its status, its events with its channel); the
 * first attempt's id is the message's id. The attempts not yet tried wait, with their work items,
 * in `failover_steps` until an attempt carries the message or fails in a way no channel can fix.
 */
@Injectable()
export class FailoverService {
  private readonly logger = new Logger(FailoverService.name);

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly sends: MessagesService,
    private readonly messages: MessagesRepository,
  ) {}

  /**
   * Accepts the first attempt consent allows (each refusal moves on to the next channel; when all
   * are refused, the first refusal is the answer); the later ones are kept in the same transaction.
   */
  async accept(
    base: { userId: string; accountId: string; idempotency: { key: string; hash: string } | null },
    attempts: RouteAttempt[],
  ): Promise<string> {
    let refusal: unknown = null;
    for (let i = 0; i < attempts.length; i++) {
      try {
        return await this.enqueue(base, attempts[i], base.idempotency, (em, id) =>
          this.keep(em, id, 1, attempts.slice(i + 1)),
        );
      } catch (err) {
        if (!consentRefused(err)) throw err;
        refusal ??= err;
      }
    }
    throw refusal;
  }

  /**
   * After attempts failed: each failure another channel can fix starts the message's next
   * attempt (the next channel consent allows); any other failure drops what was left to try.
   */
  async afterFailures(failed: { message: MessageEntity; code: string | null }[]): Promise<void> {
    const parents = await this.attemptsOf(failed.map((f) => f.message.id));
    for (const f of failed) {
      const attempt = parents.get(f.message.id);
      if (!attempt) continue;
      try {
        if (f.code && FIXABLE_FAILURES.has(f.code)) await this.next(f.message, attempt.parent, attempt.position);
        else await this.ds.query(`DELETE FROM failover_steps WHERE parent_id = $1`, [attempt.parent]);
      } catch (err) {
        this.logger.error({ err, messageId: attempt.parent }, 'the next attempt could not be started');
      }
    }
  }

  /** Once an attempt carried the message, nothing is left to try (and the kept work items go). */
  async afterCarried(ids: string[]): Promise<void> {
    if (!ids.length) return;
    await this.ds.query(
      `DELETE FROM failover_steps WHERE parent_id IN (SELECT parent_id FROM message_attempts WHERE message_id = ANY($1::text[]))`,
      [ids],
    );
  }

  /** The message a (possibly later) attempt belongs to: its first attempt's id, or its own. */
  async messageIdOf(id: string): Promise<string> {
    const [row] = await sqlRows<{ parent_id: string }>(
      this.ds,
      `SELECT parent_id FROM message_attempts WHERE message_id = $1`,
      [id],
    );
    return row?.parent_id ?? id;
  }

  /** The report of a message sent over a route: the last attempt's status and channel, with every attempt. */
  async withAttempts(report: MessageReport, toReport: (m: MessageEntity) => Promise<MessageReport>) {
    const rows = await sqlRows<{ message_id: string }>(
      this.ds,
      `SELECT message_id FROM message_attempts WHERE parent_id = $1 ORDER BY position`,
      [report.id],
    );
    if (rows.length === 0) return report;
    const found = await this.messages.findByIds(rows.map((r) => r.message_id));
    const attempts = rows.map((r) => found.get(r.message_id)).filter((m): m is MessageEntity => !!m);
    const last = await toReport(attempts[attempts.length - 1]);
    const view = (m: MessageEntity): MessageAttempt => ({
      channel: m.channel,
      status: m.status,
      failure: m.status === 'FAILED' ? { code: m.failureCode, reason: m.failureReason } : null,
      created_at: unixSeconds(m.createdAt),
      updated_at: unixSeconds(m.updatedAt),
    });
    return { ...last, id: report.id, created_at: report.created_at, attempts: attempts.map(view) };
  }

  private async next(failed: MessageEntity, parent: string, position: number): Promise<void> {
    const steps = await sqlRows<{ position: number; step: RouteAttempt }>(
      this.ds,
      `SELECT position, step FROM failover_steps WHERE parent_id = $1 AND position > $2 ORDER BY position`,
      [parent, position],
    );
    for (const { position: at, step } of steps) {
      try {
        const id = await this.enqueue(
          { userId: failed.userId, accountId: failed.accountId! },
          step,
          null,
          async (em, newId) => {
            await em.query(`DELETE FROM failover_steps WHERE parent_id = $1 AND position <= $2`, [parent, at]);
            await em.query(`INSERT INTO message_attempts (message_id, parent_id, position) VALUES ($1, $2, $3)`, [
              newId,
              parent,
              at,
            ]);
          },
        );
        this.logger.log({ messageId: parent, attempt: id, channel: step.channel }, 'failed over to the next channel');
        return;
      } catch (err) {
        if (!consentRefused(err)) throw err;
        await this.ds.query(`DELETE FROM failover_steps WHERE parent_id = $1 AND position = $2`, [parent, at]);
      }
    }
  }

  private async enqueue(
    base: { userId: string; accountId: string },
    a: RouteAttempt,
    idempotency: { key: string; hash: string } | null,
    alsoWrite: (em: EntityManager, id: string) => Promise<void>,
  ): Promise<string> {
    const app = a.appId === null ? null : await this.sends.sendingApp(String(a.appId), base.userId);
    return this.sends.enqueue({
      userId: base.userId,
      accountId: base.accountId,
      channel: a.channel,
      app,
      sender: a.sender,
      recipient: a.recipient,
      kind: 'TEMPLATE',
      prepared: a.prepared,
      idempotency,
      alsoWrite,
    });
  }

  /** The first attempt and the ones still to try, in the first attempt's transaction. */
  private async keep(em: EntityManager, id: string, position: number, rest: RouteAttempt[]): Promise<void> {
    if (!rest.length) return;
    await em.query(`INSERT INTO message_attempts (message_id, parent_id, position) VALUES ($1, $1, $2)`, [
      id,
      position,
    ]);
    await em.query(
      `INSERT INTO failover_steps (parent_id, position, step)
       SELECT $1, p, s FROM unnest($2::integer[], $3::jsonb[]) AS x(p, s)`,
      [id, rest.map((_, i) => position + i + 1), rest.map((r) => JSON.stringify(r))],
    );
  }

  private async attemptsOf(ids: string[]): Promise<Map<string, { parent: string; position: number }>> {
    if (!ids.length) return new Map();
    const rows = await sqlRows<{ message_id: string; parent_id: string; position: number }>(
      this.ds,
      `SELECT message_id, parent_id, position FROM message_attempts WHERE message_id = ANY($1::text[])`,
      [ids],
    );
    return new Map(rows.map((r) => [r.message_id, { parent: r.parent_id, position: r.position }]));
  }
}
