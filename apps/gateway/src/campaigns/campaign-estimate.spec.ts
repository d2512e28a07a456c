import { CampaignQuote } from '@app/contracts';
import { estimateTime, EstimateTally, QuietHoursTally, TimeEstimateInput } from './campaign-estimate';

const now = new Date('2026-11-26T18:00:00Z');
/** An ISO time as the Unix seconds the estimate answers. */
const at = (iso: string) => Date.parse(iso) / 1000;
const base: TimeEstimateInput = {
  perChannel: {},
  pacing: { whatsapp: 80, telegram: 30, max: 30 },
  rate: null,
  tier: null,
  quiet: null,
  now,
  startAt: null,
};

describe('estimateTime', () => {
  it('takes the slowest channel at its pacing', () => {
    const t = estimateTime({ ...base, perChannel: { whatsapp: 800, telegram: 60 } });
    expect(t.time).toEqual({ seconds: 10, finish_at: at('2026-11-26T18:00:10Z'), limited_by: 'pacing' });
    expect(t.limits).toEqual([
      { limit: 'pacing', channel: 'whatsapp', per_second: 80, seconds: 10 },
      { limit: 'pacing', channel: 'telegram', per_second: 30, seconds: 2 },
    ]);
  });

  it("is limited by the campaign's rate when it is slower than every channel", () => {
    const t = estimateTime({ ...base, perChannel: { whatsapp: 800, telegram: 200 }, rate: 10 });
    expect(t.time.limited_by).toBe('rate');
    expect(t.time.seconds).toBe(100);
  });

  it("spreads a WhatsApp audience larger than today's tier room over the next days", () => {
    const tier = { cap: 1000, label: '1K', remaining: 200 };
    const t = estimateTime({ ...base, perChannel: { whatsapp: 2500 }, tier });
    expect(t.tierDays).toBe(3);
    expect(t.time).toMatchObject({ limited_by: 'tier', seconds: 3 * 86_400 });
    expect(estimateTime({ ...base, perChannel: { whatsapp: 200 }, tier }).tierDays).toBe(0);
  });

  it('counts quiet hours only for the recipients they hold at the start, each zone on its own clock', () => {
    // 18:00 UTC: 21:00 in Moscow (inside 21:00-09:00, until 06:00 UTC), 18:00 in London, 13:00 in New York.
    const quiet = new QuietHoursTally({ start: '21:00', end: '09:00' }, now);
    for (let i = 0; i < 700; i++) quiet.add(i % 2 ? 'Europe/London' : 'America/New_York');
    const free = estimateTime({ ...base, perChannel: { whatsapp: 700 }, quiet: quiet.result });
    // Nobody is inside quiet hours: the pacing alone (the old model scaled it by 1 / 0.5).
    expect(free.time).toMatchObject({ limited_by: 'pacing', seconds: 9 });
    expect(free.limits.map((l) => l.limit)).toEqual(['pacing']);
    for (let i = 0; i < 100; i++) quiet.add('Europe/Moscow');
    const held = estimateTime({ ...base, perChannel: { whatsapp: 800 }, quiet: quiet.result });
    // The 100 in Moscow wait 12 hours, then go at the campaign's pace (800 in 10 s: 100 in 1.25 s).
    expect(held.limits).toContainEqual({ limit: 'quiet_hours', recipients: 100, seconds: 12 * 3600 + 2 });
    expect(held.time).toMatchObject({ limited_by: 'quiet_hours', seconds: 12 * 3600 + 2 });
    // An unknown zone reads as UTC, as the runner reads it.
    const utc = new QuietHoursTally({ start: '17:00', end: '19:00' }, now);
    utc.add('Not/AZone');
    expect(utc.result).toEqual({ held: 1, lastEndSeconds: 3600 });
  });

  it('keeps the tier as the limit when it outlasts quiet hours', () => {
    const t = estimateTime({
      ...base,
      perChannel: { whatsapp: 1500 },
      tier: { cap: 1000, label: '1K', remaining: 1000 },
      quiet: { held: 10, lastEndSeconds: 3600 },
    });
    expect(t.time.limited_by).toBe('tier');
  });

  it('counts from start_at when it is in the future, and from now when it passed', () => {
    const later = new Date('2026-11-27T09:00:00Z');
    expect(estimateTime({ ...base, perChannel: { telegram: 30 }, startAt: later }).time.finish_at).toBe(
      at('2026-11-27T09:00:01Z'),
    );
    const past = new Date('2026-11-01T09:00:00Z');
    expect(estimateTime({ ...base, perChannel: { telegram: 30 }, startAt: past }).time.finish_at).toBe(
      at('2026-11-26T18:00:01Z'),
    );
  });

  it('takes no time for no recipients', () => {
    expect(estimateTime(base).time).toEqual({
      seconds: 0,
      finish_at: at('2026-11-26T18:00:00Z'),
      limited_by: 'pacing',
    });
  });
});

describe('EstimateTally', () => {
  const quote: CampaignQuote = {
    category: 'MARKETING',
    currency: 'USD',
    prices: { whatsapp: 0.0125, telegram: 0.01, max: 0.01 },
    balance: 0.05,
    tier: { cap: 1000, label: '1K', remaining: 1 },
    pacing: { whatsapp: 80, telegram: 30, max: 30 },
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
