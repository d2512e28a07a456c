import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { isUuid, MessageStatus, RECEIPTLESS_CHANNELS, advancesStatus } from '@app/contracts';
import { MessageEventEntity } from './message-event.entity';
import { MessageEntity } from './message.entity';
import { EntityRows, returnedRows, sqlRows, statementIn, transactionCommittedByLast } from '@app/database';
import {
  CountedMove,
  countStatusMove,
  MOVE_INCREMENTS,
  noStatusCounts,
  StatusCounts,
  usageUpsert,
} from '../usage/usage-counters';

/** A message as the send transaction records it; accepted now unless `createdAt` is given. */
export type QueuedMessage = Omit<
  MessageEntity,
  | 'createdAt'
  | 'updatedAt'
  | 'status'
  | 'billedCategory'
  | 'pricingType'
  | 'charged'
  | 'campaignId'
  | 'contactId'
  | 'contactExternalId'
  | 'renderedAs'
> & {
  createdAt?: Date;
  campaignId?: string | null;
  contactId?: string | null;
  contactExternalId?: string | null;
  renderedAs?: string | null;
};

/** A status a channel reported for a message, in the order it was reported. */
export interface StatusStep {
  messageId: string;
  status: MessageStatus;
  /** Set on FAILED: the channel's code and reason. */
  failure?: { code: string | null; reason: string | null } | null;
  /** The channel's id for the message, kept if the message has none yet. */
  providerMessageId?: string | null;
}

/** A timeline entry: a message's status and when the channel says it happened (unix seconds). */
export interface TimelineStep {
  messageId: string;
  status: MessageStatus;
  occurredAt: number;
}

/** How `recordEvents` names a message's status. */
export const stepKey = (s: { messageId: string; status: string }) => `${s.messageId} ${s.status}`;

/** The only place that queries messages and message_events. */
@Injectable()
export class MessagesRepository {
  /** Messages by id, read without the query builder (every group of status events reads its messages). */
  private readonly rows: EntityRows<MessageEntity>;

  constructor(@InjectDataSource() private readonly ds: DataSource) {
    this.rows = new EntityRows(ds, MessageEntity);
  }

  /** Runs one statement on its own (its own transaction): its rows. */
  statement<T>(sql: string, params: unknown[]): Promise<T[]> {
    return sqlRows<T>(this.ds, sql, params);
  }

  transaction<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
    return this.ds.transaction(work);
  }

  /** A transaction whose last statement may carry its COMMIT (`statementThenCommit`). */
  transactionCommittedByLast<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
    return transactionCommittedByLast(this.ds, work);
  }

  /**
   * Records accepted messages, QUEUED, the first step of their timelines and their count in the
   * usage report, in one statement. A message is accepted now unless its `createdAt` says when.
   */
  async insertQueued(em: EntityManager, messages: QueuedMessage[]) {
    const parts = this.queuedParts('$1');
    await em.query(`WITH ${parts.rows}, ${parts.usage} SELECT 1`, [this.queuedJson(messages)]);
  }

  /**
   * The parts of a statement that record accepted sends as QUEUED, as CTEs reading the JSON of
   * `queuedJson` from parameter `param`: `rows` (`queued_x`, `queued_m` and `queued_e`: the
   * messages and their first timeline step, each returning a row per message recorded) and `usage`
   * (`queued_u`: their count in the usage report), for a WITH list that may put something between
   * them. With `gate`, a condition, only when it holds; with `currency`, an expression, in that
   * currency; with `counted`, the usage counters only when that holds too (and not before it is
   * known: the send statement orders the usage row after its balance row by it).
   */
  queuedParts(param: string, gate = 'true', currency = 'currency', counted = 'true'): { rows: string; usage: string } {
    const rows = `queued_x AS (
         SELECT x.*, coalesce(x.accepted_at, now()) AS created_at FROM jsonb_to_recordset(${param}::jsonb) AS x(
           id text, user_id uuid, app_id integer, account_id uuid, channel text, recipient text, kind text, category text,
           priority text, template_id integer, provider_message_id text, price numeric, currency text,
           idempotency_key text, request_hash text, failure_code text, failure_reason text, accepted_at timestamptz,
           campaign_id uuid, contact_id text, contact_external_id text, rendered_as text)
         WHERE ${gate}
       ), queued_m AS (
         INSERT INTO messages (id, user_id, app_id, account_id, channel, recipient, kind, category, priority, template_id, status,
                               provider_message_id, price, currency, idempotency_key, request_hash, failure_code, failure_reason,
                               created_at, updated_at, campaign_id, contact_id, contact_external_id, rendered_as)
         SELECT id, user_id, app_id, account_id, channel, recipient, kind, category, priority, template_id, 'QUEUED',
                provider_message_id, price, ${currency}, idempotency_key, request_hash, failure_code, failure_reason,
                created_at, created_at, campaign_id, contact_id, contact_external_id, rendered_as
         FROM queued_x
         RETURNING id
       ), queued_e AS (
         INSERT INTO message_events (message_id, status, occurred_at)
         SELECT id, 'QUEUED', floor(extract(epoch FROM created_at))::bigint FROM queued_x
         RETURNING message_id
       )`;
    const usage = `queued_u AS (
         ${usageUpsert(`(SELECT * FROM queued_x WHERE ${counted})`, { queued: '1' })}
       )`;
    return { rows, usage };
  }

  queuedJson(messages: QueuedMessage[]): string {
    return JSON.stringify(
      messages.map((m) => ({
        id: m.id,
        user_id: m.userId,
        app_id: m.appId,
        account_id: m.accountId,
        channel: m.channel,
        recipient: m.recipient,
        kind: m.kind,
        category: m.category,
        priority: m.priority,
        template_id: m.templateId,
        provider_message_id: m.providerMessageId,
        price: m.price,
        currency: m.currency,
        idempotency_key: m.idempotencyKey,
        request_hash: m.requestHash,
        failure_code: m.failureCode,
        failure_reason: m.failureReason,
        accepted_at: m.createdAt ?? null,
        campaign_id: m.campaignId ?? null,
        contact_id: m.contactId ?? null,
        contact_external_id: m.contactExternalId ?? null,
        rendered_as: m.renderedAs ?? null,
      })),
    );
  }

  /** Messages accepted before `before` that have no final status yet, locked for this transaction. */
  claimUnsettled(
    em: EntityManager,
    before: Date,
    limit: number,
    onlyWithNextChannel = false,
  ): Promise<MessageEntity[]> {
    const q = em
      .getRepository(MessageEntity)
      .createQueryBuilder('m')
      // SENT is final on channels without receipts.
      .where(
        `(m.status = 'QUEUED' OR (m.status = 'SENT' AND m.channel <> ALL(:receiptless))) AND m.created_at < :before`,
        { before, receiptless: [...RECEIPTLESS_CHANNELS] },
      );
    // Attempts of a failover route with a channel still to try (docs/failover.md).
    if (onlyWithNextChannel) {
      q.andWhere(
        `EXISTS (SELECT 1 FROM message_attempts a JOIN failover_steps s ON s.parent_id = a.parent_id WHERE a.message_id = m.id)`,
      );
    }
    return q
      .orderBy('m.created_at', 'ASC')
      .limit(limit)
      .setLock('pessimistic_write')
      .setOnLocked('skip_locked')
      .getMany();
  }

  findById(id: string): Promise<MessageEntity | null> {
    return this.ds.getRepository(MessageEntity).findOneBy({ id });
  }

  findForApp(appId: number, id: string): Promise<MessageEntity | null> {
    return this.ds.getRepository(MessageEntity).findOneBy({ appId, id });
  }

  /** The messages with these ids, by id. */
  async findByIds(ids: string[]): Promise<Map<string, MessageEntity>> {
    const rows = await this.rows.byIds(ids);
    return new Map(rows.map((m) => [m.id, m]));
  }

  /** The message each channel id belongs to (status callbacks that do not echo our id): the newest. */
  async findByProviderIds(providerMessageIds: string[]): Promise<Map<string, MessageEntity>> {
    if (providerMessageIds.length === 0) return new Map();
    const rows = await this.ds
      .getRepository(MessageEntity)
      .createQueryBuilder('m')
      .distinctOn(['m.provider_message_id'])
      .where('m.provider_message_id IN (:...ids)', { ids: providerMessageIds })
      .orderBy('m.provider_message_id')
      .addOrderBy('m.created_at', 'DESC')
      .getMany();
    return new Map(rows.map((m) => [m.providerMessageId!, m]));
  }

  /** Locks these messages' rows, in id order, until the caller's transaction ends: their statuses now. */
  async lockStatuses(em: EntityManager, ids: string[]): Promise<Map<string, MessageStatus>> {
    const rows: { id: string; status: MessageStatus }[] = await em.query(LOCK_STATUSES, [lockOrder(ids)]);
    return new Map(rows.map((r) => [r.id, r.status]));
  }

  /**
   * `lockStatuses` and `recordEvents` in one statement: the messages' rows locked in id order, each
   * before its steps are added to its timeline (a step of a message not found is not added).
   */
  async lockAndRecord(
    em: EntityManager,
    steps: TimelineStep[],
  ): Promise<{ current: Map<string, MessageStatus>; recorded: Set<string> }> {
    const current = new Map<string, MessageStatus>();
    const recorded = new Set<string>();
    if (steps.length === 0) return { current, recorded };
    const rows: { id: string; status: MessageStatus; recorded: boolean }[] = await em.query(
      `WITH l AS (
         ${LOCK_STATUSES}
       ), e AS (
         ${this.insertEventsSql('$2', 'WHERE x.message_id IN (SELECT id FROM l)')}
       )
       SELECT id, status, false AS recorded FROM l
       UNION ALL SELECT message_id, status, true FROM e`,
      [lockOrder(steps.map((s) => s.messageId)), eventsJson(steps)],
    );
    for (const r of rows) {
      if (r.recorded) recorded.add(stepKey({ messageId: r.id, status: r.status }));
      else current.set(r.id, r.status);
    }
    return { current, recorded };
  }

  /** Adds a step to the timeline; false when that status was already recorded. */
  async recordEvent(id: string, status: MessageStatus, occurredAt: number, em: EntityManager = this.ds.manager) {
    return (await this.recordEvents(em, [{ messageId: id, status, occurredAt }])).size > 0;
  }

  /** Adds steps to the timelines, each status of a message once: the keys (`id status`) that were new. */
  async recordEvents(em: EntityManager, steps: TimelineStep[]): Promise<Set<string>> {
    if (steps.length === 0) return new Set();
    const rows = returnedRows<{ message_id: string; status: string }>(
      await em.query(this.insertEventsSql('$1'), [eventsJson(steps)]),
    );
    return new Set(rows.map((r) => stepKey({ messageId: r.message_id, status: r.status })));
  }

  /**
   * Moves the status forward, never back, so callbacks in any order and at any concurrency end in
   * the furthest state; true when the move was applied.
   */
  async advance(
    id: string,
    next: MessageStatus,
    failure: { code: string | null; reason: string | null } | null = null,
    em?: EntityManager,
  ): Promise<boolean> {
    const step = async (tx: EntityManager) =>
      (await this.advanceMany(tx, await this.lockStatuses(tx, [id]), [{ messageId: id, status: next, failure }])).has(
        id,
      );
    return em ? step(em) : this.ds.transaction(step);
  }

  /**
   * Applies the steps of many messages in one statement, each message's in the given order: a step
   * moves the status only forward from where the message is (`current`: the statuses
   * `lockStatuses` locked in this transaction), so the end
   * state is the furthest whatever order and concurrency callbacks come in. The same statement
   * counts every applied move in the usage report (exactly as the moves one at a time would) and
   * keeps the first channel id a message was given. With `last`, the statement ends a
   * `transactionCommittedByLast` transaction and carries its COMMIT (the usage row, which every
   * send and settlement of the user updates too, is held for it and the commit only). Returns the
   * ids whose status moved.
   */
  async advanceMany(
    em: EntityManager,
    current: Map<string, MessageStatus>,
    steps: StatusStep[],
    last = false,
  ): Promise<Set<string>> {
    return new Set((await this.applyMoves<{ id: string }>(em, current, steps, true, last)).map((m) => m.id));
  }

  /**
   * `advanceMany` without the usage counts: the moves it applied, with what each counts, for a
   * later statement of the transaction to add (`BillingService.settle`, after the balance row).
   */
  async advanceUncounted(
    em: EntityManager,
    current: Map<string, MessageStatus>,
    steps: StatusStep[],
  ): Promise<CountedMove[]> {
    return (await this.applyMoves<CountedMove & { id: string }>(em, current, steps, false)).map(
      ({ id: _id, ...move }) => move,
    );
  }

  /** The moves' statement: counted in it (rows of the ids moved), or not (rows of the moves, counts and all). */
  private async applyMoves<Row extends { id: string }>(
    em: EntityManager,
    current: Map<string, MessageStatus>,
    steps: StatusStep[],
    count: boolean,
    last = false,
  ): Promise<Row[]> {
    if (steps.length === 0) return [];
    const moves = new Map<
      string,
      {
        status: MessageStatus;
        moved: boolean;
        failure: StatusStep['failure'];
        providerId: string | null;
        counts: StatusCounts;
      }
    >();
    for (const [id, status] of current) {
      moves.set(id, {
        status,
        moved: false,
        failure: null,
        providerId: null,
        counts: noStatusCounts(),
      });
    }
    for (const step of steps) {
      const move = moves.get(step.messageId);
      if (!move) continue;
      move.providerId ??= step.providerMessageId ?? null;
      if (!advancesStatus(move.status, step.status)) continue;
      countStatusMove(move.status, step.status, move.counts);
      move.status = step.status;
      move.moved = true;
      if (step.status === 'FAILED') move.failure = step.failure ?? null;
    }
    const changes = [...moves].filter(([, m]) => m.moved || m.providerId !== null);
    if (changes.length === 0) return [];
    const returned = count ? 'id' : 'id, user_id, created_at, channel, category, sent, delivered, read, failed';
    const rows = await statementIn<Row>(
      em,
      `WITH x AS (
           SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(
             id text, status text, moved boolean, failed boolean, failure_code text, failure_reason text,
             provider_message_id text, sent int, delivered int, read int, failed_count int)
         ), m AS (
           UPDATE messages SET status = x.status,
                updated_at = CASE WHEN x.moved THEN now() ELSE messages.updated_at END,
                failure_code = CASE WHEN x.failed THEN x.failure_code ELSE messages.failure_code END,
                failure_reason = CASE WHEN x.failed THEN x.failure_reason ELSE messages.failure_reason END,
                provider_message_id = coalesce(messages.provider_message_id, x.provider_message_id)
           FROM x WHERE messages.id = x.id
           RETURNING messages.id, messages.user_id, messages.created_at, messages.channel, messages.category,
                     x.moved, x.sent, x.delivered, x.read, x.failed_count AS failed
         )${count ? `, u AS (${usageUpsert('(SELECT * FROM m WHERE m.moved)', MOVE_INCREMENTS)})` : ''}
         SELECT ${returned} FROM m WHERE moved`,
      [
        JSON.stringify(
          changes.map(([id, m]) => ({
            id,
            status: m.status,
            moved: m.moved,
            failed: m.moved && m.status === 'FAILED',
            failure_code: m.failure?.code ?? null,
            failure_reason: m.failure?.reason ?? null,
            provider_message_id: m.providerId,
            sent: m.counts.sent,
            delivered: m.counts.delivered,
            read: m.counts.read,
            failed_count: m.counts.failed,
          })),
        ),
      ],
      last,
    );
    return rows;
  }

  /** The statement adding the timeline steps given as JSON in `param` (those `where` keeps), each status of a message once, returning the new ones. */
  private insertEventsSql(param: string, where = ''): string {
    return `INSERT INTO message_events (message_id, status, occurred_at)
       SELECT x.message_id, x.status, x.occurred_at
       FROM jsonb_to_recordset(${param}::jsonb) AS x(message_id text, status text, occurred_at bigint)
       ${where}
       ORDER BY x.message_id, x.status
       ON CONFLICT (message_id, status) DO NOTHING RETURNING message_id, status`;
  }

  timeline(id: string): Promise<MessageEventEntity[]> {
    return (
      this.ds
        .getRepository(MessageEventEntity)
        .createQueryBuilder('e')
        .where('e.message_id = :id', { id })
        .orderBy('e.occurred_at', 'ASC')
        // Channels report in whole seconds: steps of the same second follow the lifecycle.
        .addOrderBy(`array_position(ARRAY['QUEUED','SENT','DELIVERED','READ','FAILED'], e.status)`, 'ASC')
        .addOrderBy('e.recorded_at', 'ASC')
        .getMany()
    );
  }

  /**
   * A gateway account's messages, newest first (ids are UUID v7: they sort by acceptance time),
   * after `afterId` (the last row of the previous page), filtered by channel, status, time, campaign
   * and contact. Each filter of campaign or contact reads its own index of the account's messages
   * in id order, so a page stays an index scan however many messages the account has.
   */
  listForAccount(
    accountId: string,
    filter: {
      channel?: string;
      status?: MessageStatus;
      from?: Date;
      to?: Date;
      campaignId?: string;
      contactId?: string;
    },
    afterId: string | null,
    limit: number,
  ): Promise<MessageEntity[]> {
    // No message names a campaign id that is not a UUID.
    if (filter.campaignId !== undefined && !isUuid(filter.campaignId)) return Promise.resolve([]);
    const q = this.ds
      .getRepository(MessageEntity)
      .createQueryBuilder('m')
      .where('m.account_id = :accountId', { accountId });
    if (filter.channel) q.andWhere('m.channel = :channel', { channel: filter.channel });
    if (filter.status) q.andWhere('m.status = :status', { status: filter.status });
    if (filter.from) q.andWhere('m.created_at >= :from', { from: filter.from });
    if (filter.to) q.andWhere('m.created_at < :to', { to: filter.to });
    if (filter.campaignId) q.andWhere('m.campaign_id = :campaignId', { campaignId: filter.campaignId });
    if (filter.contactId) q.andWhere('m.contact_id = :contactId', { contactId: filter.contactId });
    if (afterId) q.andWhere('m.id < :afterId', { afterId });
    // A failover route's later attempts are shown in their message's report, not as messages.
    q.andWhere('NOT EXISTS (SELECT 1 FROM message_attempts a WHERE a.message_id = m.id AND a.parent_id <> m.id)');
    return q.orderBy('m.id', 'DESC').limit(limit).getMany();
  }

  /** The message a send with this Idempotency-Key and request hash committed, whatever became of it since. */
  async findIdByIdempotencyKey(userId: string, key: string, hash: string): Promise<string | null> {
    const rows = (await this.ds.query(
      `SELECT id FROM messages
       WHERE user_id = $1 AND idempotency_key = $2 AND request_hash = $3
       ORDER BY created_at LIMIT 1`,
      [userId, key, hash],
    )) as { id: string }[];
    return rows[0]?.id ?? null;
  }
}

/** Locks the messages whose ids are in `$1`, in id order, until the transaction ends: their statuses now. */
const LOCK_STATUSES = `SELECT id, status FROM messages WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE`;

/** The distinct ids, sorted, as `LOCK_STATUSES` takes them. */
function lockOrder(ids: string[]): string[] {
  return [...new Set(ids)].sort();
}

/** Timeline steps as the JSON parameter of the statement that adds them. */
function eventsJson(steps: TimelineStep[]): string {
  return JSON.stringify(
    steps.map((s) => ({ message_id: s.messageId, status: s.status, occurred_at: Math.floor(s.occurredAt) })),
  );
}
