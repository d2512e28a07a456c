import { Injectable, Optional } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { chargedStatusOf, type ChannelPricing } from '@app/contracts';
import { BalanceEntity } from './balance.entity';
import { BalancesRepository, holdsJson } from './balances.repository';
import { Charge, decideCharges, fromUnits, toUnits, Units } from './charges';
import { MessagePrices } from './message-prices';
import { TransactionEntity } from './transaction.entity';
import type { CountedMove } from '../usage/usage-counters';

/** A hold to capture, with what the channel's callback says it billed (absent: it did not say). */
export interface CaptureRequest {
  messageId: string;
  pricing?: ChannelPricing | null;
}

export { fromUnits, toUnits } from './charges';
export type { Units } from './charges';

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
  constructor(
    private readonly balances: BalancesRepository,
    // Only captures at a billed category need the price table; top-ups (the CLI) do not.
    @Optional() private readonly prices?: MessagePrices,
  ) {}

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

  /**
   * The part of one statement that holds these sends' prices on a user's balance, all or none:
   * only if the balance still has their sum available when the statement takes its row (and
   * `also`, a condition of the caller's statement, holds), which it does once the caller's CTEs
   * named in `after` are done. `hold_b` has the row (its currency too) when it did; `seen`, a
   * condition, and `currency`, an expression, are what the statement read of the balance before
   * (for the caller's writes that come before the row); the parameters follow the caller's from
   * `$first` on.
   */
  conditionalHold(
    userId: string,
    holds: { messageId: string; amount: Units }[],
    first: number,
    also?: string,
    after?: string[],
  ): { before: string; take: string; seen: string; currency: string; params: unknown[] } {
    const total = holds.reduce((sum, h) => sum + h.amount, 0n);
    const [user, rows, sum] = [0, 1, 2].map((i) => `$${first + i}`);
    return {
      ...this.balances.conditionalHoldSql({ user, holds: rows, total: sum, also, after }),
      params: [
        userId,
        holdsJson(holds.map((h) => ({ messageId: h.messageId, amount: fromUnits(h.amount) }))),
        fromUnits(total),
      ],
    };
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

  /** Turns a message's hold into a charge at the assumed price; true only for the call that captured it. */
  async capture(messageId: string, em?: EntityManager): Promise<boolean> {
    return (await this.settle(em, { capture: [{ messageId }], release: [] })).captured.size > 0;
  }

  /** Gives a message's hold back; true only for the call that released it. */
  async release(messageId: string, em?: EntityManager): Promise<boolean> {
    return (await this.settle(em, { capture: [], release: [messageId] })).released.size > 0;
  }

  /**
   * Settles many messages' holds at once: captures the first list as charges (at what the channel
   * billed, when its callback said: see `decideCharges`), gives the second's back, each hold once.
   * A balance row is taken after the holds' rows when only one user's holds are captured, each within
   * its hold, and first otherwise (several users' rows in one order, so that settlements never
   * deadlock). `moves`, the usage counts of the status moves settling these messages, are added by
   * the last statement, after the balance rows; with `last` (`em` is a `transactionCommittedByLast`
   * transaction that ends here), that statement carries the COMMIT, so that the rows are held for it
   * and the commit only. The charges captured, by message id, and the ids released.
   */
  async settle(
    em: EntityManager | undefined,
    ids: { capture: CaptureRequest[]; release: string[] },
    moves: CountedMove[] = [],
    last = false,
  ): Promise<{ captured: Map<string, Charge>; released: Set<string> }> {
    const run = async (tx: EntityManager) => {
      const captureIds = ids.capture.map((c) => c.messageId);
      const pricing = new Map(ids.capture.map((c) => [c.messageId, c.pricing]));
      const decide = (
        held: Awaited<ReturnType<BalancesRepository['heldForCapture']>>,
        available: Map<string, string>,
      ) =>
        decideCharges(
          held.map((h) => ({
            messageId: h.messageId,
            userId: h.userId,
            channel: h.channel,
            held: toUnits(h.amount),
            assumedCategory: h.category,
          })),
          pricing,
          new Map([...available].map(([userId, amount]) => [userId, toUnits(amount)])),
          (category, channel) => {
            if (!this.prices) throw new Error('a charge at a billed category needs the price table');
            return toUnits(this.prices.priceOf(category, channel));
          },
        );
      // Captures of one user's holds, each charged within its hold, need nothing of the available
      // balance: the capture statement takes the balance row itself, as late as it can (the holds
      // cannot move meanwhile: whoever settles a message holds its row). Otherwise the users' rows
      // are locked first, in one order, so that settlements of several users never deadlock.
      const held = ids.release.length === 0 ? await this.balances.heldForCapture(tx, captureIds) : null;
      let charges = held && new Set(held.map((h) => h.userId)).size <= 1 ? decide(held, new Map()) : null;
      if (!charges || charges.some((c) => c.uncharged > 0n)) {
        const available = await this.balances.lockBalancesOfHolds(tx, [...captureIds, ...ids.release]);
        charges = decide(await this.balances.heldForCapture(tx, captureIds), available);
      }
      const releasing = ids.release.length > 0;
      const captured = await this.balances.capture(
        tx,
        charges.map((c) => ({
          messageId: c.messageId,
          status: chargedStatusOf(c.channel),
          category: c.category,
          assumedCategory: c.assumedCategory,
          pricingType: c.pricingType,
          charged: fromUnits(c.charged),
          uncharged: fromUnits(c.uncharged),
        })),
        releasing ? [] : moves,
        last && !releasing,
      );
      return {
        captured: new Map(charges.filter((c) => captured.has(c.messageId)).map((c) => [c.messageId, c])),
        released: await this.balances.release(tx, ids.release, releasing ? moves : [], last && releasing),
      };
    };
    if (ids.capture.length + ids.release.length + moves.length === 0)
      return { captured: new Map(), released: new Set() };
    return em ? run(em) : this.balances.transaction(run);
  }
}
