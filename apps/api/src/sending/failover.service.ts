import { Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  Channel,
  ConversationContent,
  MessageAttempt,
  MessageContact,
  MessageKind,
  MessageReport,
  OutboundMessage,
  unixSeconds,
} from '@app/contracts';
import { ProblemError } from '@app/server';
import type { KeyLease } from '../idempotency/idempotency.service';
import { FailoverRepository } from './failover.repository';
import { MessageEntity } from '../messages/message.entity';
import { MessagesRepository } from '../messages/messages.repository';
import { MessagesService, PreparedSend } from './messages.service';

/** One channel of a send over a failover route, ready to accept. */
export interface RouteAttempt {
  channel: Channel;
  /** The WhatsApp app that sends it; null on a bot channel. */
  appId: number | null;
  sender: OutboundMessage['sender'];
  recipient: string;
  prepared: PreparedSend;
  /** The message's kind: TEMPLATE when absent (a template send), else a content send's (TEXT, IMAGE, ...). */
  kind?: MessageKind;
  /** The campaign the message is sent for: every attempt carries it. */
  campaignId?: string | null;
  /** The contact the message is sent to: every attempt carries it. */
  contact?: MessageContact | null;
  /** What the attempt shows in its recipient's conversation (carried on its events), when the api says. */
  threadContent?: ConversationContent | null;
}

/** What a send writes in its transaction once an attempt is accepted, given its id and the attempt. */
export type AttemptWrite = (em: EntityManager, id: string, attempt: RouteAttempt) => Promise<void>;

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
    private readonly sends: MessagesService,
    private readonly messages: MessagesRepository,
    private readonly routes: FailoverRepository,
  ) {}

  /**
   * Accepts the first attempt consent allows (each refusal moves on to the next channel; when all
   * are refused, the first refusal is the answer); the later ones are kept in the same transaction,
   * with what the caller writes (`alsoWrite`) about the accepted attempt.
   */
  async accept(
    base: {
      userId: string;
      accountId: string;
      idempotency: KeyLease | null;
      alsoWrite?: AttemptWrite;
    },
    attempts: RouteAttempt[],
  ): Promise<string> {
    let refusal: unknown = null;
    for (let i = 0; i < attempts.length; i++) {
      try {
        const rest = attempts.slice(i + 1);
        const attempt = attempts[i];
        return await this.enqueue(base, attempt, base.idempotency, async (em, id) => {
          if (rest.length) await this.routes.keep(em, id, rest);
          await base.alsoWrite?.(em, id, attempt);
        });
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
    const parents = await this.routes.attemptsOf(failed.map((f) => f.message.id));
    for (const f of failed) {
      const attempt = parents.get(f.message.id);
      if (!attempt) continue;
      try {
        if (f.code && FIXABLE_FAILURES.has(f.code)) await this.next(f.message, attempt.parent, attempt.position);
        else await this.routes.dropSteps(attempt.parent);
      } catch (err) {
        this.logger.error({ err, messageId: attempt.parent }, 'the next attempt could not be started');
      }
    }
  }

  /** Once an attempt carried the message, nothing is left to try (and the kept work items go). */
  async afterCarried(ids: string[]): Promise<void> {
    if (ids.length) await this.routes.dropStepsOfAttempts(ids);
  }

  /**
   * Moves on the messages whose last attempt failed but whose next attempt never started (the
   * process stopped, or the database failed, between the two): run by the settlement pass.
   */
  async resumeWaiting(olderThanMs: number): Promise<number> {
    const last = await this.routes.lastAttemptsWaiting(olderThanMs, 100);
    const found = await this.messages.findByIds(last.map((l) => l.message_id));
    const failed = [...found.values()];
    await this.afterFailures(failed.map((m) => ({ message: m, code: m.failureCode })));
    return failed.length;
  }

  /** The message a (possibly later) attempt belongs to: its first attempt's id, or its own. */
  async messageIdOf(id: string): Promise<string> {
    return (await this.routes.parentOf(id)) ?? id;
  }

  /** The report of a message sent over a route: the last attempt's status and channel, with every attempt. */
  async withAttempts(report: MessageReport, toReport: (m: MessageEntity) => Promise<MessageReport>) {
    const ids = await this.routes.attemptIds(report.id);
    if (ids.length === 0) return report;
    const found = await this.messages.findByIds(ids);
    const attempts = ids.map((id) => found.get(id)).filter((m): m is MessageEntity => !!m);
    const last = await toReport(attempts[attempts.length - 1]);
    const view = (m: MessageEntity): MessageAttempt => ({
      channel: m.channel,
      status: m.status,
      failure: m.status === 'FAILED' ? { code: m.failureCode, reason: m.failureReason } : null,
      created_at: unixSeconds(m.createdAt),
      updated_at: unixSeconds(m.updatedAt),
      rendered_as: m.renderedAs ?? null,
    });
    return { ...last, id: report.id, created_at: report.created_at, attempts: attempts.map(view) };
  }

  /** Starts the next step consent allows; each step is claimed first, so it starts once. */
  private async next(failed: MessageEntity, parent: string, position: number): Promise<void> {
    for (const at of await this.routes.positions(parent, position)) {
      const step = await this.routes.claim(parent, at);
      if (!step) return;
      try {
        const id = await this.enqueue(
          { userId: failed.userId, accountId: failed.accountId! },
          step,
          null,
          (em, newId) => this.routes.began(em, parent, at, newId),
        );
        this.logger.log({ messageId: parent, attempt: id, channel: step.channel }, 'failed over to the next channel');
        return;
      } catch (err) {
        if (consentRefused(err)) continue;
        if (err instanceof ProblemError && err.status < 500) {
          // A refusal (balance, app, tier) ends the message here, as it would a first send.
          this.logger.warn({ messageId: parent, channel: step.channel, problem: err.slug }, 'next attempt refused');
          return;
        }
        // The database or the stream failed: the settlement pass tries the step again.
        await this.routes.restore(parent, at, step);
        throw err;
      }
    }
  }

  private async enqueue(
    base: { userId: string; accountId: string },
    a: RouteAttempt,
    idempotency: KeyLease | null,
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
      kind: a.kind ?? 'TEMPLATE',
      prepared: a.prepared,
      idempotency,
      alsoWrite,
      campaignId: a.campaignId ?? null,
      contact: a.contact ?? null,
      threadContent: a.threadContent ?? null,
    });
  }
}
