import { Injectable } from '@nestjs/common';
import { ConflictProblem, ForbiddenProblem, NotFoundProblem, UnprocessableProblem } from '@app/server';
import { AuthenticatedAccount } from '../accounts/authenticated-account';
import { GatewayConfig } from '../config';
import { ConnectionsRepository } from '../connections/connections.repository';
import { CreateCourseRuleDto, ListCourseEventsDto } from './dto/course.dto';
import { CourseEventRow, CourseRepository, CourseRuleRow } from './course.repository';
import { isUuid, unixSeconds } from '@app/contracts';

export interface CourseRuleView {
  id: string;
  connection_id: string;
  event_type: string;
  channel: string;
  template: string;
  language: string | null;
  recipient_field: string;
  params: string[];
  wait_for_reply: { timeout_seconds: number } | null;
  created_at: number;
}

/** A course event as its account sees it: what happened to it, never the event's body. */
export interface CourseEventView {
  id: string;
  connection_id: string;
  event_id: string;
  type: string | null;
  status: string;
  reason: string | null;
  message_ids: string[];
  received_at: number;
  processed_at: number | null;
}

/** A row's time (a Date, or its text from raw SQL) in unix seconds. */
const seconds = (d: Date | string) => unixSeconds(new Date(d));

/** The account's course rules and the record of its course events. */
@Injectable()
export class CourseService {
  constructor(
    private readonly course: CourseRepository,
    private readonly connections: ConnectionsRepository,
    private readonly config: GatewayConfig,
  ) {}

  /**
   * A rule on one of the account's live course connections, for a channel the account has
   * connected (422 otherwise, as a send on it would be refused); 409 past the caps on rules per
   * account and per event type (the most sends one event makes).
   */
  async createRule(account: AuthenticatedAccount, dto: CreateCourseRuleDto): Promise<CourseRuleView> {
    const connection = await this.connections.findById(dto.connection_id.toLowerCase());
    if (!connection || connection.channel !== 'course') throw new NotFoundProblem('course connection');
    if (connection.accountId !== account.id) throw new ForbiddenProblem('The connection belongs to another account.');
    if (connection.state === 'disconnected') {
      throw new UnprocessableProblem('connection-deleted', 'Connection deleted', 'The course connection was deleted.');
    }
    const channel = await this.connections.liveForAccount(account.id, dto.channel);
    if (!channel || (dto.channel !== 'whatsapp' && !channel.credential)) {
      throw new UnprocessableProblem(
        'not-connected',
        'Channel not connected',
        `The account has no ${dto.channel} connection: connect one with POST /v1/connections.`,
      );
    }
    const caps = {
      perAccount: this.config.COURSE_MAX_RULES_PER_ACCOUNT,
      perEventType: this.config.COURSE_MAX_RULES_PER_EVENT_TYPE,
    };
    const rule = await this.course.insertRule(
      {
        account_id: account.id,
        connection_id: connection.id,
        event_type: dto.event_type,
        channel: dto.channel,
        template: dto.template,
        language: dto.language ?? null,
        recipient_field: dto.recipient_field,
        params: dto.params ?? [],
        wait_for_reply_seconds: dto.wait_for_reply?.timeout_seconds ?? null,
      },
      caps,
    );
    if (rule === 'account') {
      throw new ConflictProblem(
        'rule-limit-reached',
        'Rule limit reached',
        `An account may have at most ${caps.perAccount} course rules; delete one before creating another.`,
      );
    }
    if (rule === 'event_type') {
      throw new ConflictProblem(
        'rule-limit-reached',
        'Rule limit reached',
        `A connection may have at most ${caps.perEventType} rules for one event type (the sends one event makes).`,
      );
    }
    return this.ruleView(rule);
  }

  async listRules(account: AuthenticatedAccount): Promise<CourseRuleView[]> {
    return (await this.course.listRules(account.id)).map((r) => this.ruleView(r));
  }

  async deleteRule(account: AuthenticatedAccount, id: string): Promise<void> {
    const rule = isUuid(id) ? await this.course.findRule(id.toLowerCase()) : null;
    if (!rule) throw new NotFoundProblem('rule');
    if (rule.account_id !== account.id) throw new ForbiddenProblem('The rule belongs to another account.');
    await this.course.deleteRule(rule.id);
  }

  async listEvents(
    account: AuthenticatedAccount,
    q: ListCourseEventsDto,
  ): Promise<{ data: CourseEventView[]; next_cursor: string | null }> {
    const limit = q.limit === undefined ? 50 : Number(q.limit);
    const rows = await this.course.listEvents(account.id, {
      connectionId: q.connection_id?.toLowerCase(),
      status: q.status,
      cursor: q.cursor,
      limit: limit + 1,
    });
    const page = rows.slice(0, limit);
    return {
      data: page.map((r) => this.eventView(r)),
      next_cursor: rows.length > limit ? page[page.length - 1].id : null,
    };
  }

  private ruleView(r: CourseRuleRow): CourseRuleView {
    return {
      id: r.id,
      connection_id: r.connection_id,
      event_type: r.event_type,
      channel: r.channel,
      template: r.template,
      language: r.language,
      recipient_field: r.recipient_field,
      params: r.params,
      wait_for_reply: r.wait_for_reply_seconds ? { timeout_seconds: r.wait_for_reply_seconds } : null,
      created_at: seconds(r.created_at),
    };
  }

  private eventView(r: CourseEventRow): CourseEventView {
    return {
      id: r.id,
      connection_id: r.connection_id,
      event_id: r.event_key,
      type: r.type,
      status: r.status,
      reason: r.reason,
      message_ids: r.message_ids,
      received_at: seconds(r.received_at),
      processed_at: r.processed_at ? seconds(r.processed_at) : null,
    };
  }
}
