import { CampaignQuote } from '@app/contracts';
import { estimateTime, EstimateTally, TimeEstimateInput } from './campaign-estimate';

const now = new Date('2026-11-26T18:00:00Z');
const base: TimeEstimateInput = {
  perChannel: {},
  pacing: { whatsapp: 80, telegram: 30, max: 30 },
  rate: null,
  tier: null,
  runner: { tick_ms: 200, batch_max: 500, pass_cost: null },
  quiet: null,
  now,
  startAt: null,
  endBy: null,
};

describe('EstimateTally', () => {
  const quote: CampaignQuote = {
    category: 'MARKETING',
    currency: 'USD',
    prices: { whatsapp: 0.0125, telegram: 0.01, max: 0.01 },
    balance: 0.05,
    tier: { cap: 1000, label: '1K', remaining: 1 },
    pacing: { whatsapp: 80, telegram: 30, max: 30 },
    runner: base.runner,
  };

  it('tallies exclusions, channels and cost, and how far the balance and the budget go in audience order', () => {
    const tally = new EstimateTally(quote, 0.03);
    tally.exclude('no_identity');
    tally.include('whatsapp'); // 0.0125
    tally.include('telegram'); // 0.0225
    tally.exclude('opted_out');
    tally.include('whatsapp'); // 0.035: past the budget
    tally.include('telegram'); // 0.045
    tally.include('telegram'); // 0.055: past the balance
    tally.include('max'); // a cheaper one after the balance ran out is not covered either
    const e = tally.result((perChannel) => estimateTime({ ...base, perChannel, tier: quote.tier }));
    expect(e).toMatchObject({
      audience: 8,
      recipients: 6,
      excluded: { opted_out: 1, no_identity: 1, duplicate: 0, missing_param: 0 },
      channels: {
        whatsapp: { recipients: 2, price: 0.0125, cost: 0.025 },
        telegram: { recipients: 3, price: 0.01, cost: 0.03 },
        max: { recipients: 1, price: 0.01, cost: 0.01 },
      },
      cost: {
        total: 0.065,
        currency: 'USD',
        balance: 0.05,
        covered_recipients: 4,
        budget: 0.03,
        budget_covered_recipients: 2,
      },
    });
    expect(e.warnings).toEqual([
      { code: 'tier', detail: "WhatsApp's tier (1K) spreads the campaign over 2 days" },
      { code: 'balance', detail: 'the balance covers 4 of 6 recipients' },
      { code: 'budget', detail: 'the budget covers 2 of 6 recipients' },
    ]);
  });

  it('warns of nothing when everything is covered', () => {
    const tally = new EstimateTally({ ...quote, balance: 100, tier: null }, null);
    tally.include('telegram');
    const e = tally.result((perChannel) => estimateTime({ ...base, perChannel }));
    expect(e.warnings).toEqual([]);
    expect(e.cost).toMatchObject({ covered_recipients: 1, budget: null, budget_covered_recipients: null });
  });
});
