import type { ChannelPricing, MessageCategory } from '@app/contracts';
import { decideCharges, fromUnits, HeldCharge, toUnits } from './charges';

const PRICES: Record<MessageCategory, number> = {
  MARKETING: 0.05,
  MARKETING_LITE: 0.03,
  UTILITY: 0.02,
  AUTHENTICATION: 0.02,
  AUTHENTICATION_INTERNATIONAL: 0.04,
  SERVICE: 0,
};
const priceOf = (c: MessageCategory) => toUnits(PRICES[c]);

const hold = (messageId: string, assumedCategory: MessageCategory, userId = 'u'): HeldCharge => ({
  messageId,
  userId,
  channel: 'whatsapp',
  held: toUnits(PRICES[assumedCategory]),
  assumedCategory,
});

const pricing = (
  category: MessageCategory | null,
  type: ChannelPricing['type'] = 'regular',
  billable: boolean | null = true,
): ChannelPricing => ({
  category,
  channel_category: (category ?? 'referral_conversion').toLowerCase(),
  type,
  billable,
  pricing_model: 'PMP',
});

/** The charges, in decimal strings, for one hold and what the callback said. */
function one(h: HeldCharge, p: ChannelPricing | null | undefined, available = '10') {
  const [c] = decideCharges([h], new Map([[h.messageId, p]]), new Map([[h.userId, toUnits(available)]]), priceOf);
  return {
    category: c.category,
    assumed: c.assumedCategory,
    type: c.pricingType,
    charged: fromUnits(c.charged),
    uncharged: fromUnits(c.uncharged),
    refund: fromUnits(c.refund),
    extra: fromUnits(c.extra),
  };
}

describe('decideCharges: a hold is captured at what the channel billed', () => {
  it('without pricing (older API versions, other channels) the price assumed at send is charged', () => {
    expect(one(hold('a', 'UTILITY'), undefined)).toEqual({
      category: 'UTILITY',
      assumed: 'UTILITY',
      type: null,
      charged: '0.0200',
      uncharged: '0.0000',
      refund: '0.0000',
      extra: '0.0000',
    });
  });

  it('a utility template inside the open customer-service window is free: 0 charged, the hold returned', () => {
    expect(one(hold('a', 'UTILITY'), pricing('UTILITY', 'free_customer_service', false))).toMatchObject({
      category: 'UTILITY',
      type: 'free_customer_service',
      charged: '0.0000',
      refund: '0.0200',
    });
    // The type alone says so (billable is being retired), and so does billable alone.
    expect(one(hold('b', 'MARKETING'), pricing('MARKETING', 'free_entry_point', null))).toMatchObject({
      charged: '0.0000',
      refund: '0.0500',
    });
    expect(one(hold('c', 'UTILITY'), pricing('UTILITY', null, false))).toMatchObject({ charged: '0.0000' });
  });

  it('a cheaper billed category is charged at its price and the rest of the hold returned', () => {
    expect(one(hold('a', 'MARKETING'), pricing('MARKETING_LITE'))).toMatchObject({
      category: 'MARKETING_LITE',
      assumed: 'MARKETING',
      type: 'regular',
      charged: '0.0300',
      refund: '0.0200',
      extra: '0.0000',
    });
  });

  it('a dearer billed category is charged in full when the available balance covers the difference', () => {
    expect(one(hold('a', 'UTILITY'), pricing('MARKETING'), '1')).toMatchObject({
      category: 'MARKETING',
      assumed: 'UTILITY',
      charged: '0.0500',
      uncharged: '0.0000',
      refund: '0.0000',
      extra: '0.0300',
    });
  });

  it('a dearer billed category is charged only up to the available balance; the rest is recorded, never owed', () => {
    expect(one(hold('a', 'UTILITY'), pricing('MARKETING'), '0.01')).toMatchObject({
      charged: '0.0300',
      uncharged: '0.0200',
      extra: '0.0100',
    });
    expect(one(hold('b', 'AUTHENTICATION'), pricing('AUTHENTICATION_INTERNATIONAL'), '0')).toMatchObject({
      category: 'AUTHENTICATION_INTERNATIONAL',
      charged: '0.0200',
      uncharged: '0.0200',
      extra: '0.0000',
    });
  });

  it('the holds of one user share what is available, in order; another user has their own', () => {
    const holds = [hold('a', 'UTILITY'), hold('b', 'UTILITY'), hold('c', 'UTILITY', 'v')];
    const charges = decideCharges(
      holds,
      new Map(holds.map((h) => [h.messageId, pricing('MARKETING')])),
      new Map([
        ['u', toUnits('0.04')],
        ['v', toUnits('0.04')],
      ]),
      priceOf,
    );
    expect(charges.map((c) => [c.messageId, fromUnits(c.charged), fromUnits(c.uncharged)])).toEqual([
      ['a', '0.0500', '0.0000'],
      ['b', '0.0300', '0.0200'],
      ['c', '0.0500', '0.0000'],
    ]);
  });

  it('a billable category the platform does not know charges what was held', () => {
    expect(one(hold('a', 'UTILITY'), pricing(null))).toMatchObject({
      category: 'UTILITY',
      type: 'regular',
      charged: '0.0200',
    });
  });
});
