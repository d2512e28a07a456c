import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { RpcProblemError } from '@app/messaging';
import { Clock, counter, flattenValidationErrors, PeriodicJob, ProblemError, requestHash } from '@app/server';
import { AccountsRepository } from '../accounts/accounts.repository';
import { AuthenticatedAccount } from '../accounts/authenticated-account';
import { GatewayConfig } from '../config';
import { ConnectionsRepository } from '../connections/connections.repository';
import { SendGatewayMessageDto } from '../messages/dto/send-gateway-message.dto';
import { GatewayMessagesService } from '../messages/gateway-messages.service';
import { normalizePhone, readPath } from './course-body';
import { CourseRepliesRepository } from './course-replies.repository';
import { CourseEventRow, CourseRepository, CourseRuleRow } from './course.repository';

/** Events taken per pass, and how long one pass may hold them (the api's send timeout is 10 s per rule). */
const BATCH = 10;
const LEASE_MS = 120_000;
/** An event the api could not take is tried again after 1 s, doubling up to a minute, until the api answers. */
const RETRY_FIRST_MS = 1000;
const RETRY_MAX_MS = 60_000;

const outcomes = () => counter('course_events_total', 'Course events processed by outcome', ['outcome']);

/** What one rule made of an event: a message, or the reason it could not. */
type RuleOutcome = { ok: true; messageId: string } | { ok: false; reason: string };

/** A send the api (or the gateway's own checks) refused: the rule failed, retrying would not help. */
function refusalOf(err: unknown): string | null {
  if (err instanceof RpcProblemError && err.problem.status < 500) {
    const p = err.problem;
    const fields = p.errors?.map((e) => `${e.field}: ${e.message}`).join('; ');
    return `${p.title}: ${p.detail ?? ''}${fields ? ` (${fields})` : ''}`.trim();
  }
  if (err instanceof ProblemError && err.status < 500) {
    const fields = (err.extensions.errors as { field: string; message: string }[] | undefined)
      ?.map((e) => `${e.field}: ${e.message}`)
      .join('; ');
    return `${err.title}: ${err.detail ?? ''}${fields ? ` (${fields})` : ''}`.trim();
  }
  return null;
}

/**
 * Turns stored course events into sends, after the platform has been answered: a database-backed
 * worker (survives restarts; several gateways share the work through leases). Each rule matching
 * the event's type becomes a send through the same path as `POST /v1/messages`, with an
 * Idempotency-Key of the event and the rule, so an event tried again never sends twice. While the
 * api cannot answer, the event waits and is tried again; a send the api refuses, or a field the
 * event lacks, ends the event as `rule_failed` with the reason.
 */
@Injectable()
export class CourseProcessor implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('CourseProcessor');
  private readonly job: PeriodicJob<number>;
  private readonly maxRulesPerEvent: number;

  constructor(
    private readonly course: CourseRepository,
    private readonly accounts: AccountsRepository,
    private readonly connections: ConnectionsRepository,
    private readonly messages: GatewayMessagesService,
    private readonly replies: CourseRepliesRepository,
    private readonly clock: Clock,
    config: GatewayConfig,
  ) {
    this.job = new PeriodicJob('course events', config.COURSE_POLL_INTERVAL_MS, () => this.drain(), this.logger);
    this.maxRulesPerEvent = config.COURSE_MAX_RULES_PER_EVENT_TYPE;
  }

  onApplicationBootstrap(): void {
    this.job.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.job.stop();
  }

  /** A new event was stored: look now rather than at the next tick. */
  poke(): void {
    this.job.poke();
  }

  private async drain(): Promise<number> {
    let total = 0;
    for (;;) {
      const events = await this.course.claimDueEvents(BATCH, LEASE_MS);
      total += events.length;
      for (const e of events) await this.process(e);
      if (events.length < BATCH) return total;
    }
  }

  private async process(e: CourseEventRow): Promise<void> {
    try {
      const result = await this.outcomeOf(e);
      await this.course.finishEvent(e.id, result.status, result.reason, result.messageIds);
      outcomes().inc({ outcome: result.status });
    } catch (err) {
      const delay = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** Math.max(0, e.attempts - 1));
      const reason = err instanceof RpcProblemError ? (err.problem.detail ?? err.problem.title) : 'processing failed';
      this.logger.warn({ err: String(err), eventId: e.id, attempts: e.attempts }, 'course event not processed yet');
      outcomes().inc({ outcome: 'retried' });
      await this.course.retryEventLater(e.id, delay, `waiting to be tried again: ${reason}`).catch(() => undefined);
    }
  }

  /** The event's outcome; throws while the api (or the database) cannot be reached, so it is tried again. */
  private async outcomeOf(
    e: CourseEventRow,
  ): Promise<{ status: 'processed' | 'rule_failed' | 'ignored'; reason: string | null; messageIds: string[] }> {
    const connection = await this.connections.findById(e.connection_id);
    if (!connection || connection.state === 'disconnected') {
      return { status: 'ignored', reason: 'the course connection was deleted', messageIds: [] };
    }
    if (!e.type) return { status: 'ignored', reason: 'the event has no type or event field', messageIds: [] };
    // Bounded: one inbound event never fans out to more sends than the cap on rules per event type.
    const rules = await this.course.matchingRules(e.connection_id, e.type, this.maxRulesPerEvent);
    if (!rules.length) return { status: 'ignored', reason: `no rule for events of type "${e.type}"`, messageIds: [] };
    const owner = await this.accounts.findAccount(e.account_id);
    if (!owner) return { status: 'ignored', reason: 'the account no longer exists', messageIds: [] };
    const account: AuthenticatedAccount = { id: owner.id, name: owner.name, userId: owner.userId };
    const messageIds: string[] = [];
    const failures: string[] = [];
    for (const rule of rules) {
      const r = await this.applyRule(account, e, rule);
      if (r.ok) messageIds.push(r.messageId);
      else failures.push(rules.length > 1 ? `rule ${rule.id}: ${r.reason}` : r.reason);
    }
    return failures.length
      ? { status: 'rule_failed', reason: failures.join('; '), messageIds }
      : { status: 'processed', reason: null, messageIds };
  }

  private async applyRule(account: AuthenticatedAccount, e: CourseEventRow, rule: CourseRuleRow): Promise<RuleOutcome> {
    const body = e.body ?? {};
    const recipient = readPath(body, rule.recipient_field);
    if (recipient === undefined) return { ok: false, reason: `field "${rule.recipient_field}" is missing or empty` };
    const params: string[] = [];
    for (const field of rule.params) {
      const value = readPath(body, field);
      if (value === undefined) return { ok: false, reason: `field "${field}" is missing or empty` };
      params.push(value);
    }
    const send = {
      channel: rule.channel,
      to: rule.channel === 'whatsapp' ? normalizePhone(recipient) : recipient,
      template: rule.template,
      params,
      ...(rule.language ? { language: rule.language } : {}),
    };
    const errors = flattenValidationErrors(await validate(plainToInstance(SendGatewayMessageDto, send)));
    if (errors.length) return { ok: false, reason: errors.map((x) => `${x.field}: ${x.message}`).join('; ') };
    try {
      const answer = await this.messages.send(account, send as SendGatewayMessageDto, {
        key: `course-${e.id}-${rule.id}`,
        hash: requestHash('POST', '/v1/messages', send),
      });
      await this.course.recordMessage({
        message_id: answer.id,
        connection_id: e.connection_id,
        course_event_id: e.id,
        event_id: e.event_key,
        student: send.to,
      });
      if (rule.wait_for_reply_seconds) {
        // The student's next message answers it; at the due time `no_reply` is posted (CourseOutboxWorker).
        const now = this.clock.now();
        await this.replies.startWait({
          message_id: answer.id,
          account_id: e.account_id,
          connection_id: e.connection_id,
          channel: rule.channel,
          student: send.to,
          event_id: e.event_key,
          due_at: new Date(now.getTime() + rule.wait_for_reply_seconds * 1000),
          created_at: now,
        });
      }
      return { ok: true, messageId: answer.id };
    } catch (err) {
      const refusal = refusalOf(err);
      if (refusal === null) throw err;
      return { ok: false, reason: refusal };
    }
  }
}
