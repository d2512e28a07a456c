import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { MESSAGE_STATUSES, MessageStatus, RECEIPTLESS_CHANNELS, advancesStatus } from '@app/contracts';
import { TemplateEntity } from '../templates/template.entity';
import { MessageEventEntity } from './message-event.entity';
import { MessageEntity } from './message.entity';
import type { SendableTemplate } from './template-message';
import { returnedRows } from '@app/database';
import { statusIncrements, usageUpsert } from '../usage/usage-counters';

/** A message as the send transaction records it; accepted now unless `createdAt` is given. */
export type QueuedMessage = Omit<MessageEntity, 'createdAt' | 'updatedAt' | 'status'> & { createdAt?: Date };

/** The statuses from which a move to `next` is a step forward. */
function predecessors(next: MessageStatus): MessageStatus[] {
  return MESSAGE_STATUSES.filter((current) => advancesStatus(current, next));
}

/** The only place that queries messages and message_events (and reads templates for sending). */
@Injectable()
export class MessagesRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  transaction<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
    return this.ds.transaction(work);
  }

  /**
   * The app's templates of this name, every language and status (read-only look at templates).
   * Plain SQL: it runs on every template send, where the query builder's cost shows.
   */
  async findTemplates(appId: number, name: string): Promise<SendableTemplate[]> {
    const rows: Pick<
      TemplateEntity,
      'id' | 'name' | 'language' | 'category' | 'type' | 'status' | 'header' | 'body' | 'footer' | 'buttons'
    >[] = await this.ds.query(
      `SELECT id, name, language, category, type, status, header, body, footer, buttons
         FROM templates WHERE app_id = $1 AND name = $2 ORDER BY id`,
      [appId, name],
    );
    return rows.map((t) => ({
      id: t.id,
      name: t.name,
      language: t.language,
      category: t.category,
      type: t.type,
      status: t.status,
      header: t.header ? { text: t.header.text } : null,
      body: { text: t.body.text },
      footer: t.footer ? { text: t.footer.text } : null,
      buttons: (t.buttons ?? []).map((b) => ({ type: b.type, text: b.text, url: b.url })),
    }));
  }

  /**
   * Records accepted messages, QUEUED, the first step of their timelines and their count in the
   * usage report, in one statement. A message is accepted now unless its `createdAt` says when.
   */
  async insertQueued(em: EntityManager, messages: QueuedMessage[]) {
    await em.query(
      `WITH x AS (
         SELECT x.*, coalesce(x.accepted_at, now()) AS created_at FROM jsonb_to_recordset($1::jsonb) AS x(
           id text, user_id uuid, app_id integer, account_id uuid, channel text, recipient text, kind text, category text,
           priority text, template_id integer, provider_message_id text, price numeric, currency text,
           idempotency_key text, request_hash text, failure_code text, failure_reason text, accepted_at timestamptz)
       ), m AS (
         INSERT INTO messages (id, user_id, app_id, account_id, channel, recipient, kind, category, priority, template_id, status,
                               provider_message_id, price, currency, idempotency_key, request_hash, failure_code, failure_reason,
                               created_at, updated_at)
         SELECT id, user_id, app_id, account_id, channel, recipient, kind, category, priority, template_id, 'QUEUED',
                provider_message_id, price, currency, idempotency_key, request_hash, failure_code, failure_reason,
                created_at, created_at
         FROM x
       ), u AS (
         ${usageUpsert('x', { queued: '1' })}
       )
       INSERT INTO message_events (message_id, status, occurred_at)
       SELECT id, 'QUEUED', floor(extract(epoch FROM created_at))::bigint FROM x`,
      [
        JSON.stringify(
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
          })),
        ),
      ],
    );
  }

  /** Messages accepted before `before` that have no final status yet, locked for this transaction. */
  claimUnsettled(em: EntityManager, before: Date, limit: number): Promise<MessageEntity[]> {
    return (
      em
        .getRepository(MessageEntity)
        .createQueryBuilder('m')
        // SENT is final on channels without receipts.
        .where(
          `(m.status = 'QUEUED' OR (m.status = 'SENT' AND m.channel <> ALL(:receiptless))) AND m.created_at < :before`,
          { before, receiptless: [...RECEIPTLESS_CHANNELS] },
        )
        .orderBy('m.created_at', 'ASC')
        .limit(limit)
        .setLock('pessimistic_write')
        .setOnLocked('skip_locked')
        .getMany()
    );
  }

  findById(id: string): Promise<MessageEntity | null> {
    return this.ds.getRepository(MessageEntity).findOneBy({ id });
  }

  findForApp(appId: number, id: string): Promise<MessageEntity | null> {
    return this.ds.getRepository(MessageEntity).findOneBy({ appId, id });
  }

  /** The message a channel id belongs to (status callbacks that do not echo our id). */
  findByProviderId(providerMessageId: string): Promise<MessageEntity | null> {
    return this.ds.getRepository(MessageEntity).findOne({ where: { providerMessageId }, order: { createdAt: 'DESC' } });
  }

  /** Keeps the first channel id a message was given. */
  async setProviderId(id: string, providerMessageId: string): Promise<void> {
    await this.ds.query(`UPDATE messages SET provider_message_id = coalesce(provider_message_id, $2) WHERE id = $1`, [
      id,
      providerMessageId,
    ]);
  }

  /** Adds a step to the timeline; false when that status was already recorded. */
  async recordEvent(id: string, status: MessageStatus, occurredAt: number, em: EntityManager = this.ds.manager) {
    const rows = returnedRows<unknown>(
      await em.query(
        `INSERT INTO message_events (message_id, status, occurred_at) VALUES ($1, $2, $3)
       ON CONFLICT (message_id, status) DO NOTHING RETURNING status`,
        [id, status, occurredAt],
      ),
    );
    return rows.length > 0;
  }

  /**
   * Moves the status forward, never back: the UPDATE only matches a current status from which
   * `next` is a step forward, so callbacks in any order and at any concurrency end in the furthest
   * state. The same statement counts the move in the usage report, so only a move that is applied
   * is counted, once.
   */
  async advance(
    id: string,
    next: MessageStatus,
    failure: { code: string | null; reason: string | null } | null = null,
    em: EntityManager = this.ds.manager,
  ): Promise<boolean> {
    const rows = returnedRows<unknown>(
      await em.query(
        `WITH p AS (
           SELECT id, status AS prev_status FROM messages WHERE id = $1 AND status = ANY($3::text[]) FOR UPDATE
         ), m AS (
           UPDATE messages SET status = $2, updated_at = now(),
                failure_code = CASE WHEN $2 = 'FAILED' THEN $4 ELSE failure_code END,
                failure_reason = CASE WHEN $2 = 'FAILED' THEN $5 ELSE failure_reason END
           FROM p WHERE messages.id = p.id
           RETURNING messages.id, messages.user_id, messages.created_at, messages.channel, messages.category, p.prev_status
         ), u AS (
           ${usageUpsert('m', statusIncrements(next))}
         )
         SELECT id FROM m`,
        [id, next, predecessors(next), failure?.code ?? null, failure?.reason ?? null],
      ),
    );
    return rows.length > 0;
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
   * after `afterId` (the last row of the previous page), filtered by channel, status and time.
   */
  listForAccount(
    accountId: string,
    filter: { channel?: string; status?: MessageStatus; from?: Date; to?: Date },
    afterId: string | null,
    limit: number,
  ): Promise<MessageEntity[]> {
    const q = this.ds
      .getRepository(MessageEntity)
      .createQueryBuilder('m')
      .where('m.account_id = :accountId', { accountId });
    if (filter.channel) q.andWhere('m.channel = :channel', { channel: filter.channel });
    if (filter.status) q.andWhere('m.status = :status', { status: filter.status });
    if (filter.from) q.andWhere('m.created_at >= :from', { from: filter.from });
    if (filter.to) q.andWhere('m.created_at < :to', { to: filter.to });
    if (afterId) q.andWhere('m.id < :afterId', { afterId });
    return q.orderBy('m.id', 'DESC').limit(limit).getMany();
  }

  /** A send committed with this Idempotency-Key and request hash, unless it was compensated (queue_unavailable). */
  async findIdByIdempotencyKey(userId: string, key: string, hash: string): Promise<string | null> {
    const rows = (await this.ds.query(
      `SELECT id FROM messages
       WHERE user_id = $1 AND idempotency_key = $2 AND request_hash = $3
         AND NOT (status = 'FAILED' AND failure_code = 'queue_unavailable')
       ORDER BY created_at LIMIT 1`,
      [userId, key, hash],
    )) as { id: string }[];
    return rows[0]?.id ?? null;
  }
}
