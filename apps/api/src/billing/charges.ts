import { Channel, ChannelPricing, isFreeOfCharge, MessageCategory, PricingType } from '@app/contracts';

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

const min = (a: Units, b: Units): Units => (a < b ? a : b);

/** An open hold about to be captured, with what the send assumed. */
export interface HeldCharge {
  messageId: string;
  userId: string;
  channel: Channel;
  /** What was held at send: the assumed category's price. */
  held: Units;
  assumedCategory: MessageCategory;
}

/** How one hold is captured. */
export interface Charge {
  messageId: string;
  userId: string;
  channel: Channel;
  /** The category charged: what the channel billed, or the assumed one when it did not say. */
  category: MessageCategory;
  assumedCategory: MessageCategory;
  pricingType: PricingType | null;
  /** Taken from the user: at most the hold plus what the balance had available. */
  charged: Units;
  /** What the channel billed that the balance could not cover. */
  uncharged: Units;
  /** What the hold returns to the available balance (the hold less the charge, when less). */
  refund: Units;
  /** What the charge takes from the available balance beyond the hold. */
  extra: Units;
}

/**
 * How each hold is captured (the rule of docs/api-sending.md, "What the channel billed"):
 * - no pricing in the callback: the assumed price, the hold, is charged;
 * - free (billable false, or a free_customer_service or free_entry_point type): 0, the hold released;
 * - a category the channel billed: its price (`priceOf`). A cheaper one is charged and the rest of
 *   the hold released; a dearer one is charged up to the hold plus what the user still has
 *   available (holds of one user are taken in the given order from one available amount), and
 *   what is left is recorded as `uncharged`: a balance never goes below zero.
 * A pricing that names a category the platform does not know and is not free charges the hold.
 */
export function decideCharges(
  holds: HeldCharge[],
  pricing: Map<string, ChannelPricing | null | undefined>,
  available: Map<string, Units>,
  priceOf: (category: MessageCategory, channel: Channel) => Units,
): Charge[] {
  const left = new Map(available);
  return holds.map((h) => {
    const p = pricing.get(h.messageId) ?? null;
    const free = p !== null && isFreeOfCharge(p);
    const category = p?.category ?? h.assumedCategory;
    const billed = free ? 0n : p?.category ? priceOf(p.category, h.channel) : h.held;
    const room = left.get(h.userId) ?? 0n;
    const extra = billed > h.held ? min(billed - h.held, room > 0n ? room : 0n) : 0n;
    left.set(h.userId, room - extra);
    const charged = min(billed, h.held) + extra;
    return {
      messageId: h.messageId,
      userId: h.userId,
      channel: h.channel,
      category,
      assumedCategory: h.assumedCategory,
      pricingType: p?.type ?? null,
      charged,
      uncharged: billed - charged,
      refund: h.held > charged ? h.held - charged : 0n,
      extra,
    };
  });
}
