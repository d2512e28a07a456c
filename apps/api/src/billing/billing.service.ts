import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { BalanceEntity } from './balance.entity';
import { BalancesRepository } from './balances.repository';
import { TransactionEntity } from './transaction.entity';

/** Money in ten-thousandths (the balance's numeric(20,4)): exact sums of prices. */
export type Units = bigint;

export function toUnits(amount: number | string): Units {
  // Numbers are prices (at most 4 decimals, validated); strings come from numeric columns.
  const [whole, frac = ''] = (typeof amount === 'number' ? amount.toFixed(4) : amount).split('.');
  const negative = whole.startsWith('-');
  const units = BigInt(whole.replace('-', '') || '0') * 10_000n + BigInt((frac + '0000').slice(0, 4));
  return negative ? -units : units;
}

export function fromUnits(units: Units): string {
  const negative = units < 0n;
  const abs = negative ? -units : units;
  return `${negative ? '-' : ''}${abs / 10_000n}.${String(abs % 10_000n).padStart(4, '0')}`;
}

/** A user's balance locked for one send transaction: what it can still hold. */
export interface LockedBalance {
  userId: string;
  currency: string;
  available: Units;
}

/**
 * The only code that moves money: a top-up (credit), the hold of an accepted send, and its
 * settlement, captured as a charge on delivery or released on failure, each exactly once.
 */
@Injectable()
export class BillingService {
  constructor(private readonly balances: BalancesRepository) {}

  credit(userId: string, amount: number): Promise<{ transaction: TransactionEntity; balance: BalanceEntity }> {
    return this.balances.credit(userId, amount);
  }

  /**
   * Locks the user's balance row until the caller's transaction ends (the only hot row of a
   * send), so the holds decided against it cannot overdraw it. Null when the user has none.
   */
  async lockForHolds(em: EntityManager, userId: string): Promise<LockedBalance | null> {
    const row = await this.balances.lockBalance(em, userId);
    return row ? { userId, currency: row.currency, available: toUnits(row.available) } : null;
  }

  /** Whether a locked balance still covers `price` after what this transaction already holds. */
  covers(balance: LockedBalance, alreadyHeld: Units, price: Units): boolean {
    return balance.available - alreadyHeld >= price;
  }

  /** Records the holds of accepted sends and moves their sum from available to held, in one statement. */
  async hold(em: EntityManager, balance: LockedBalance, holds: { messageId: string; amount: Units }[]): Promise<void> {
    if (holds.length === 0) return;
    const total = holds.reduce((sum, h) => sum + h.amount, 0n);
    await this.balances.insertHolds(
      em,
      balance.userId,
      balance.currency,
      holds.map((h) => ({ messageId: h.messageId, amount: fromUnits(h.amount) })),
      fromUnits(total),
    );
  }

  /** Turns a message's hold into a charge; true only for the call that captured it. */
  async capture(messageId: string, em?: EntityManager): Promise<boolean> {
    return (await this.settle(em, { capture: [messageId], release: [] })).captured.size > 0;
  }

  /** Gives a message's hold back; true only for the call that released it. */
  async release(messageId: string, em?: EntityManager): Promise<boolean> {
    return (await this.settle(em, { capture: [], release: [messageId] })).released.size > 0;
  }

  /**
   * Settles many messages' holds at once: captures the first list as charges, gives the second's
   * back, each hold once. Inside a caller's transaction the users' balance rows are locked first,
   * in one order, so that settlement never deadlocks with sends. The ids each list settled.
   */
  async settle(
    em: EntityManager | undefined,
    ids: { capture: string[]; release: string[] },
  ): Promise<{ captured: Set<string>; released: Set<string> }> {
    const run = async (tx: EntityManager) => {
      await this.balances.lockBalancesOfHolds(tx, [...ids.capture, ...ids.release]);
      return {
        captured: await this.balances.capture(tx, ids.capture),
        released: await this.balances.release(tx, ids.release),
      };
    };
    if (ids.capture.length + ids.release.length === 0) return { captured: new Set(), released: new Set() };
    return em ? run(em) : this.balances.transaction(run);
  }
}
