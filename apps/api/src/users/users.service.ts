import { Injectable } from '@nestjs/common';
import { BalancesRepository, TransactionKey, TransactionRow } from '../billing/balances.repository';
import { maskPhone } from '../billing/mask-phone';
import { BalanceDto, TransactionDto } from './dto/balance.dto';
import { ListTransactionsQuery, TRANSACTIONS_CURSOR, TRANSACTIONS_PAGE } from './dto/list-transactions.query';

/** Rows read from the database at a time while a page is written out. */
const TRANSACTIONS_BATCH = 250;

/** A page of transactions being written: its batches (the first already read) and the next page's cursor. */
export interface TransactionPage {
  batches: AsyncIterable<TransactionDto[]>;
  /** The cursor of the next page; null when this page reaches now. */
  next: string | null;
}

@Injectable()
export class UsersService {
  constructor(private readonly balances: BalancesRepository) {}

  /** The balance shown is what can be spent: amounts held for queued messages are not in it. */
  async balance(userId: string, fallbackCurrency: string): Promise<BalanceDto> {
    const balance = await this.balances.findBalance(userId);
    return { balance: balance?.available ?? 0, currency: (balance?.currency ?? fallbackCurrency).trim() };
  }

  /**
   * Transactions from `start_date` 00:00 UTC until now, oldest first, recipients masked: one page of
   * at most `limit`, from `cursor`, read from the database in batches while the answer is written
   * (its memory does not grow with the history). Null when the page is empty.
   */
  async transactionPage(userId: string, query: ListTransactionsQuery): Promise<TransactionPage | null> {
    const from = new Date(`${query.start_date}T00:00:00Z`);
    const start = query.cursor ? keyOf(query.cursor) : null;
    const { until, next } = await this.balances.transactionPageEnd(
      userId,
      from,
      start,
      query.limit ?? TRANSACTIONS_PAGE.default,
    );
    const rows = this.balances.transactionBatches(userId, from, { start, end: next, until }, TRANSACTIONS_BATCH);
    const first = await rows.next();
    if (first.done) return null;
    return {
      batches: (async function* () {
        yield first.value.map(transactionDto);
        for await (const batch of rows) yield batch.map(transactionDto);
      })(),
      next: next ? `${next.micros}.${next.id}` : null,
    };
  }
}

function keyOf(cursor: string): TransactionKey {
  const [, micros, id] = TRANSACTIONS_CURSOR.exec(cursor) ?? [];
  return { micros, id };
}

/** A transaction as the list shows it: amount a number, recipient masked, time in Unix seconds. */
export function transactionDto(t: TransactionRow): TransactionDto {
  return {
    id: t.id,
    app_id: t.app_id,
    amount: Number(t.amount),
    currency: t.currency.trim(),
    status: t.status,
    category: t.category,
    assumed_category: t.assumed_category,
    pricing_type: t.pricing_type,
    uncharged: Number(t.uncharged),
    recipient_phone: maskPhone(t.recipient_phone),
    campaign_id: t.campaign_id,
    timestamp: Math.floor(Number(t.micros) / 1_000_000),
  };
}
