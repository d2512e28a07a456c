import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { BalanceEntity } from './balance.entity';
import { HoldEntity } from './hold.entity';
import { TransactionEntity } from './transaction.entity';
import { statementIn } from '@app/database';
import type { Channel, MessageCategory } from '@app/contracts';
import { CountedMove, countedMovesSql, MOVE_INCREMENTS, usageUpsert } from '../usage/usage-counters';

/** The only place that queries balances, holds and transactions; its money-moving statements are called by BillingService alone. */
@Injectable()
export class BalancesRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  findBalance(userId: string): Promise<BalanceEntity | null> {
    return this.ds.getRepository(BalanceEntity).findOneBy({ userId });
  }

  /** A top-up: a positive transaction and the same amount added to the available balance, atomically. */
  async credit(userId: string, amount: number): Promise<{ transaction: TransactionEntity; balance: BalanceEntity }> {
    return this.ds.transaction(async (em) => {
      const updated = await em
        .createQueryBuilder()
        .update(BalanceEntity)
        .set({ available: () => 'available + :amount' })
        .where('user_id = :userId', { userId })
        .setParameter('amount', amount)
        .returning(['currency'])
        .execute();
      const rows = updated.raw as { currency: string }[];
      if (rows.length === 0) throw new Error(`user ${userId} has no balance`);
      const transaction = em.create(TransactionEntity, {
        id: uuidv7(),
        userId,
        appId: null,
        amount,
        currency: rows[0].currency,
        status: 'CREDITED',
        category: null,
        recipientPhone: null,
        messageId: null,
      });
      await em.insert(TransactionEntity, transaction);
      const balance = await em.findOneByOrFail(BalanceEntity, { userId });
      return { transaction, balance };
    });
  }

  /** Locks a user's balance row until the caller's transaction ends. */
  async lockBalance(em: EntityManager, userId: string): Promise<{ currency: string; available: string } | null> {
    const rows: { currency: string; available: string }[] = await em.query(
      `SELECT currency, available::text AS available FROM balances WHERE user_id = $1 FOR UPDATE`,
      [userId],
    );
    return rows[0] ?? null;
  }

  /**
   * Records holds of accepted messages and moves their total from available to held, in one
   * statement inside the caller's transaction (the balance row is already locked by it). The
   * check constraint on `available` is the last guard against going below zero.
   */
  async insertHolds(
    em: EntityManager,
    userId: string,
    currency: string,
    holds: { messageId: string; amount: string }[],
    total: string,
  ): Promise<void> {
    await em.query(
      `WITH h AS (${holdRowsSql('$1', '$2', '$3')})
       ${balanceHoldSql('$1', '$4')}`,
      [userId, currency, holdsJson(holds), total],
    );
  }

  /**
   * The parts of a statement that hold `total` of a user's balance for the holds given as JSON
   * (`holdsJson`), only if the balance still has `total` available (and `also` holds, a condition
   * of the caller's statement). `hold_seen` reads the balance without a lock (its currency, and
   * whether it covers `total` as the statement's snapshot sees it: `seen`); `hold_h` records the
   * holds in that currency when it does. `hold_b` then takes the row on condition, only once the
   * CTEs named in `after` (writes of the caller that take no contended lock, each returning a row
   * per row written) and `hold_h` are done, so that the row is locked for the rest of the statement
   * and the commit only; it returns the row (user and currency) when it held `total`. The caller
   * aborts the statement when `hold_b` is empty. Parameters by placeholder.
   */
  conditionalHoldSql(p: { user: string; holds: string; total: string; also?: string; after?: string[] }): {
    /** `hold_seen` and `hold_h`, to come before the CTEs named in `after` in the statement's WITH list. */
    before: string;
    /** `hold_b`, to come after them. */
    take: string;
    seen: string;
    currency: string;
  } {
    const also = p.also ? `AND ${p.also}` : '';
    const written = ['hold_h', ...(p.after ?? [])].map((cte) => `(SELECT count(*) FROM ${cte})`).join(' + ');
    const seen = 'EXISTS (SELECT 1 FROM hold_seen)';
    const currency = '(SELECT currency FROM hold_seen)';
    return {
      before: `hold_seen AS (
         SELECT currency FROM balances WHERE user_id = ${p.user} AND available >= ${p.total}::numeric
       ), hold_h AS (
         ${holdRowsSql(p.user, currency, p.holds, seen)}
         RETURNING message_id
       )`,
      take: `hold_b AS (
         ${balanceHoldSql(p.user, p.total, `AND ${written} >= 0 AND available >= ${p.total}::numeric ${also}`)}
         RETURNING user_id, currency
       )`,
      seen,
      currency,
    };
  }

  transaction<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
    return this.ds.transaction(work);
  }

  /**
   * Locks the balance rows of the users these messages' open holds belong to, in one order, until
   * the caller's transaction ends: each user's available amount now.
   */
  async lockBalancesOfHolds(em: EntityManager, messageIds: string[]): Promise<Map<string, string>> {
    const rows: { user_id: string; available: string }[] = await em.query(
      `SELECT user_id, available::text AS available FROM balances
       WHERE user_id IN (SELECT user_id FROM holds WHERE message_id = ANY($1::text[]) AND status = 'HELD')
       ORDER BY user_id FOR UPDATE`,
      [messageIds],
    );
    return new Map(rows.map((r) => [r.user_id, r.available]));
  }

  /** The open holds of these messages, in message id order, with what their sends assumed. */
  async heldForCapture(
    em: EntityManager,
    messageIds: string[],
  ): Promise<{ messageId: string; userId: string; amount: string; category: MessageCategory; channel: Channel }[]> {
    if (messageIds.length === 0) return [];
    const rows: { message_id: string; user_id: string; amount: string; category: MessageCategory; channel: Channel }[] =
      await em.query(
        `SELECT h.message_id, h.user_id, h.amount::text AS amount, m.category, m.channel
         FROM holds h JOIN messages m ON m.id = h.message_id
         WHERE h.message_id = ANY($1::text[]) AND h.status = 'HELD'
         ORDER BY h.message_id`,
        [[...new Set(messageIds)]],
      );
    return rows.map((r) => ({
      messageId: r.message_id,
      userId: r.user_id,
      amount: r.amount,
      category: r.category,
      channel: r.channel,
    }));
  }

  /**
   * Turns messages' holds into charges, each once: a hold must still be HELD, and its transaction
   * (the negative charged amount, `status`: the one its message is charged at, the category charged
   * and the one assumed, the channel's pricing type, what was left uncharged and the message's
   * campaign), the hold's new state, the balance (once per user: the holds leave `held`, what they
   * held beyond their charges returns to `available`,
   * and charges beyond their holds come out of it), the message's billed category, type and charge,
   * and the cost in the usage report (under the category charged) change in one statement, which
   * also adds `moves` to the usage report (after the balance row, so that the row is held only for
   * this statement and the commit). `last`: the statement ends a `transactionCommittedByLast`
   * transaction and carries its COMMIT. The ids captured by this call.
   */
  async capture(
    em: EntityManager,
    charges: {
      messageId: string;
      status: string;
      category: string;
      assumedCategory: string;
      pricingType: string | null;
      charged: string;
      uncharged: string;
    }[],
    moves: CountedMove[] = [],
    last = false,
  ): Promise<Set<string>> {
    if (charges.length === 0 && moves.length === 0) return new Set();
    const rows = await statementIn<{ message_id: string }>(
      em,
      `WITH x AS (
           SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(
             message_id text, transaction_id uuid, status text, category text, assumed_category text,
             pricing_type text, charged numeric, uncharged numeric)
         ), h AS (
           UPDATE holds SET status = 'CAPTURED', settled_at = now()
           FROM x WHERE holds.message_id = x.message_id AND holds.status = 'HELD'
           RETURNING holds.message_id, holds.user_id, holds.amount, holds.currency, x.transaction_id, x.status,
                     x.category, x.assumed_category, x.pricing_type, x.charged, x.uncharged
         ), t AS (
           INSERT INTO transactions (id, user_id, app_id, amount, currency, status, category, assumed_category,
                                     pricing_type, uncharged, recipient_phone, message_id, campaign_id)
           SELECT h.transaction_id, h.user_id, m.app_id, -h.charged, h.currency, h.status, h.category,
                  h.assumed_category, h.pricing_type, h.uncharged, m.recipient, h.message_id, m.campaign_id
           FROM h JOIN messages m ON m.id = h.message_id
           RETURNING message_id
         ), b AS (
           UPDATE balances SET held = balances.held - s.held, available = balances.available + s.returned,
                  updated_at = now()
           FROM (SELECT user_id, sum(amount) AS held, sum(amount - charged) AS returned FROM h GROUP BY user_id) s
           WHERE balances.user_id = s.user_id
           RETURNING balances.user_id
         ), billed AS (
           UPDATE messages SET billed_category = h.category, pricing_type = h.pricing_type, charged = h.charged
           FROM h WHERE messages.id = h.message_id
         ), c AS (
           -- After the balance (its row is locked first everywhere), the charge in the usage report.
           SELECT m.user_id, m.created_at, m.channel, h.category, h.charged AS cost,
                  0 AS sent, 0 AS delivered, 0 AS read, 0 AS failed
           FROM h JOIN messages m ON m.id = h.message_id WHERE h.user_id IN (SELECT user_id FROM b)
           UNION ALL ${countedMovesSql('$2', 'b')}
         ), u AS (
           ${usageUpsert('c', { cost: 's.cost', ...MOVE_INCREMENTS })}
         )
         SELECT message_id FROM t`,
      [
        JSON.stringify(
          charges.map((c) => ({
            message_id: c.messageId,
            transaction_id: uuidv7(),
            status: c.status,
            category: c.category,
            assumed_category: c.assumedCategory,
            pricing_type: c.pricingType,
            charged: c.charged,
            uncharged: c.uncharged,
          })),
        ),
        JSON.stringify(moves),
      ],
      last,
    );
    return new Set(rows.map((r) => r.message_id));
  }

  /**
   * Gives messages' held amounts back to the available balance, each once, and adds `moves` to the
   * usage report in the same statement (after the balance row); `last` as for `capture`. The ids
   * released by this call.
   */
  async release(
    em: EntityManager,
    messageIds: string[],
    moves: CountedMove[] = [],
    last = false,
  ): Promise<Set<string>> {
    if (messageIds.length === 0 && moves.length === 0) return new Set();
    const rows = await statementIn<{ message_id: string }>(
      em,
      `WITH h AS (
           UPDATE holds SET status = 'RELEASED', settled_at = now()
           WHERE message_id = ANY($1::text[]) AND status = 'HELD'
           RETURNING message_id, user_id, amount
         ), b AS (
           UPDATE balances SET available = balances.available + s.amount, held = balances.held - s.amount, updated_at = now()
           FROM (SELECT user_id, sum(amount) AS amount FROM h GROUP BY user_id) s
           WHERE balances.user_id = s.user_id
           RETURNING balances.user_id
         ), u AS (
           ${usageUpsert(`(${countedMovesSql('$2', 'b')})`, MOVE_INCREMENTS)}
         )
         SELECT message_id FROM h WHERE user_id IN (SELECT user_id FROM b)`,
      [[...new Set(messageIds)], JSON.stringify(moves)],
      last,
    );
    return new Set(rows.map((r) => r.message_id));
  }

  findHold(messageId: string): Promise<HoldEntity | null> {
    return this.ds.getRepository(HoldEntity).findOneBy({ messageId });
  }

  /**
   * Where a page of a user's transactions ends, fixed when the page is asked for: `until`, the
   * database's now (later rows are not in it), and `next`, the key of the row after the page's
   * `limit` rows (null: the page reaches `until`). One index read of at most `limit` + 1 entries.
   */
  async transactionPageEnd(
    userId: string,
    from: Date,
    start: TransactionKey | null,
    limit: number,
  ): Promise<{ until: string; next: TransactionKey | null }> {
    const params: unknown[] = [userId, from, limit];
    const rows: { until: string; micros: string | null; id: string | null }[] = await this.ds.query(
      `SELECT ${MICROS('now()')} AS until, n.micros, n.id
       FROM (SELECT 1) AS one LEFT JOIN LATERAL (
         SELECT ${MICROS('created_at')} AS micros, id::text AS id FROM transactions
         WHERE user_id = $1 AND created_at >= $2 AND created_at <= now() ${fromKey(start, '>=', params)}
         ORDER BY created_at, id OFFSET $3 LIMIT 1
       ) AS n ON true`,
      params,
    );
    const row = rows[0];
    return { until: row.until, next: row.micros && row.id ? { micros: row.micros, id: row.id } : null };
  }

  /**
   * A page of a user's transactions from `from`, oldest first, read in batches of `batch` rows by
   * key (never the whole page in memory): from `start` (inclusive) up to `end` (exclusive) and no
   * later than `until`.
   */
  async *transactionBatches(
    userId: string,
    from: Date,
    page: { start: TransactionKey | null; end: TransactionKey | null; until: string },
    batch: number,
  ): AsyncGenerator<TransactionRow[]> {
    let after: TransactionKey | null = null;
    for (;;) {
      const params: unknown[] = [userId, from, page.until, batch];
      const lower = after ? fromKey(after, '>', params) : fromKey(page.start, '>=', params);
      let upper = '';
      if (page.end) {
        params.push(page.end.micros, page.end.id);
        const at = TIME(`$${params.length - 1}`);
        upper = `AND created_at <= ${at} AND (created_at, id) < (${at}, $${params.length}::uuid)`;
      }
      const rows: TransactionRow[] = await this.ds.query(
        `SELECT id::text AS id, app_id, amount::text AS amount, currency, status, category, assumed_category,
                pricing_type, uncharged::text AS uncharged, recipient_phone, campaign_id::text AS campaign_id,
                ${MICROS('created_at')} AS micros
         FROM transactions
         WHERE user_id = $1 AND created_at >= $2 AND created_at <= ${TIME('$3')} ${lower} ${upper}
         ORDER BY created_at, id LIMIT $4`,
        params,
      );
      if (rows.length) yield rows;
      if (rows.length < batch) return;
      const last = rows[rows.length - 1];
      after = { micros: last.micros, id: last.id };
    }
  }
}

/** A transaction's place in the list: its time in microseconds since the epoch, then its id. */
export interface TransactionKey {
  micros: string;
  id: string;
}

/** A transactions list row as read: amount and time as exact text. */
export interface TransactionRow {
  id: string;
  app_id: number | null;
  amount: string;
  currency: string;
  status: string;
  category: string | null;
  assumed_category: string | null;
  pricing_type: string | null;
  uncharged: string;
  recipient_phone: string | null;
  campaign_id: string | null;
  /** created_at in microseconds since the epoch (exact: a key of the list). */
  micros: string;
}

/** A timestamptz as whole microseconds since the epoch, as text (exact, unlike a JS Date). */
const MICROS = (column: string) => `((extract(epoch FROM ${column}) * 1000000)::bigint)::text`;
/** The timestamptz of microseconds since the epoch given as a parameter. */
const TIME = (param: string) => `('epoch'::timestamptz + ${param}::bigint * interval '1 microsecond')`;

/**
 * The condition "at or after (>=) / after (>) this key", its values appended to `params`. The plain
 * `created_at >=` lets the (user_id, created_at) index bound the scan; the row comparison orders ties by id.
 */
function fromKey(key: TransactionKey | null, op: '>=' | '>', params: unknown[]): string {
  if (!key) return '';
  params.push(key.micros, key.id);
  const at = TIME(`$${params.length - 1}`);
  return `AND created_at >= ${at} AND (created_at, id) ${op} (${at}, $${params.length}::uuid)`;
}

export function holdsJson(holds: { messageId: string; amount: string }[]): string {
  return JSON.stringify(holds.map((h) => ({ message_id: h.messageId, amount: h.amount })));
}

/** Inserts the holds given as JSON in `holds` (HELD), of `user` in `currency`; with `gate`, only when it holds. */
function holdRowsSql(user: string, currency: string, holds: string, gate = 'true'): string {
  return `INSERT INTO holds (message_id, user_id, amount, currency, status)
         SELECT x.message_id, ${user}, x.amount, ${currency}, 'HELD'
         FROM jsonb_to_recordset(${holds}::jsonb) AS x(message_id text, amount numeric)
         WHERE ${gate}`;
}

/** Moves `total` of `user`'s balance from available to held (`condition`: more of the WHERE clause). */
function balanceHoldSql(user: string, total: string, condition = ''): string {
  return `UPDATE balances SET available = available - ${total}::numeric, held = held + ${total}::numeric, updated_at = now()
       WHERE user_id = ${user} ${condition}`;
}
