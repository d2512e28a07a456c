import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { MESSAGE_STATUSES, MessageStatus, advancesStatus } from '@app/contracts';
import { TemplateEntity } from '../templates/template.entity';
import { MessageEventEntity } from './message-event.entity';
import { MessageEntity } from './message.entity';
import type { SendableTemplate } from './template-message';
import { returnedRows } from '../billing/returned-rows';

export interface TierUsage {
  /** Unique recipients of template sends in the last 24 hours. */
  recipients: number;
  /** Whether this recipient is one of them (a repeat does not count again). */
  known: boolean;
  /** Seconds until the oldest of them leaves the window. */
  freesInSeconds: number;
}

/** Two-key advisory lock namespace for the messaging-tier check of one app. */
const TIER_LOCK_NAMESPACE = 74_001;

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

  /** The app's templates of this name, every language and status (read-only look at templates). */
  async findTemplates(appId: number, name: string): Promise<SendableTemplate[]> {
    const rows = await this.ds.getRepository(TemplateEntity).find({ where: { appId, name }, order: { id: 'ASC' } });
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
   * Serialises the tier check of one app until the transaction ends, so that concurrent template
   * sends to new recipients cannot together pass the cap.
   */
  async lockTier(em: EntityManager, appId: number): Promise<void> {
    await em.query(`SELECT pg_advisory_xact_lock($1, $2)`, [TIER_LOCK_NAMESPACE, appId]);
  }

  async tierUsage(em: EntityManager, appId: number, recipient: string): Promise<TierUsage> {
    const rows = returnedRows<{ recipients: string; known: boolean | null; frees_in: string | null }>(
      await em.query(
        `SELECT count(*) AS recipients,
              coalesce(bool_or(recipient = $2), false) AS known,
              extract(epoch FROM min(last_at) + interval '24 hours' - now()) AS frees_in
       FROM (
         SELECT recipient, max(created_at) AS last_at FROM messages
         WHERE app_id = $1 AND kind = 'TEMPLATE' AND status <> 'FAILED' AND created_at > now() - interval '24 hours'
         GROUP BY recipient
       ) r`,
        [appId, recipient],
      ),
    );
    return {
      recipients: Number(rows[0].recipients),
      known: rows[0].known === true,
      freesInSeconds: Math.max(1, Math.ceil(Number(rows[0].frees_in ?? 1))),
    };
  }

  /** Records an accepted message and the first step of its timeline. */
  async insertQueued(em: EntityManager, message: Omit<MessageEntity, 'createdAt' | 'updatedAt'>): Promise<void> {
    await em.insert(MessageEntity, message);
    await em.query(
      `INSERT INTO message_events (message_id, status, occurred_at) VALUES ($1, 'QUEUED', floor(extract(epoch FROM now()))::bigint)`,
      [message.id],
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
   * `next` is a step forward, so callbacks in any order and at any concurrency end in the furthest state.
   */
  async advance(
    id: string,
    next: MessageStatus,
    failure: { code: string | null; reason: string | null } | null = null,
    em: EntityManager = this.ds.manager,
  ): Promise<boolean> {
    const rows = returnedRows<unknown>(
      await em.query(
        `UPDATE messages SET status = $2, updated_at = now(),
              failure_code = CASE WHEN $2 = 'FAILED' THEN $4 ELSE failure_code END,
              failure_reason = CASE WHEN $2 = 'FAILED' THEN $5 ELSE failure_reason END
       WHERE id = $1 AND status = ANY($3::text[])
       RETURNING id`,
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
}
