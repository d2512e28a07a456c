import { estimateTime, QuietHoursTally, TimeEstimateInput } from './campaign-estimate-time';

const now = new Date('2026-11-26T18:00:00Z');
/** An ISO time as the Unix seconds the estimate answers. */
const at = (iso: string) => Date.parse(iso) / 1000;
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
const unpaced = { whatsapp: 10_000, telegram: 10_000, max: 10_000 };
/** A tally of `n` recipients in each zone given, in that order. */
function zones(quiet: { start: string; end: string }, ...groups: [string, number][]): QuietHoursTally {
  const tally = new QuietHoursTally(quiet, now);
  for (const [zone, n] of groups) for (let i = 0; i < n; i++) tally.add(zone);
  return tally;
}

describe('estimateTime', () => {
  it("replays the runner's passes: the first takes a second's pace, each channel at its own", () => {
    const t = estimateTime({ ...base, perChannel: { whatsapp: 800, telegram: 60 } });
    // 80 at the first tick, then 16 a tick: 9.1 s rather than 800 / 80.
    expect(t.time).toEqual({ seconds: 9.1, finish_at: at('2026-11-26T18:00:10Z'), limited_by: 'pacing' });
    expect(t.limits).toEqual([
      { limit: 'pacing', channel: 'whatsapp', per_second: 80, seconds: 10 },
      { limit: 'pacing', channel: 'telegram', per_second: 30, seconds: 2 },
      { limit: 'runner', per_second: 2500, seconds: 0.4 },
    ]);
  });

  it('is limited by the runner when its passes, not the pacing, set the pace', () => {
    // 1,000 a pass and a pass of 1,000 costing 820 ms: one pass a second.
    const runner = { tick_ms: 200, batch_max: 1000, pass_cost: { fixed_ms: 20, per_recipient_ms: 0.8, passes: 40 } };
    const t = estimateTime({ ...base, pacing: unpaced, runner, perChannel: { whatsapp: 10_000 } });
    expect(t.time).toMatchObject({ seconds: 10, limited_by: 'runner' });
    expect(t.limits).toContainEqual({ limit: 'runner', per_second: 1000, seconds: 10 });
    // The same audience before any pass was measured: only the batch cap and the tick.
    expect(
      estimateTime({
        ...base,
        pacing: unpaced,
        runner: { ...runner, pass_cost: null },
        perChannel: { whatsapp: 10_000 },
      }).time.seconds,
    ).toBe(1.9);
  });

  it("is limited by the campaign's rate when it is slower than every channel", () => {
    const t = estimateTime({ ...base, perChannel: { whatsapp: 800, telegram: 200 }, rate: 10 });
    expect(t.time.limited_by).toBe('rate');
    expect(t.time.seconds).toBeCloseTo(99.1, 5);
  });

  it("spreads a WhatsApp audience larger than today's tier room over the next days", () => {
    const tier = { cap: 1000, label: '1K', remaining: 200 };
    const t = estimateTime({ ...base, perChannel: { whatsapp: 2500 }, tier });
    expect(t.tierDays).toBe(3);
    expect(t.time).toMatchObject({ limited_by: 'tier', seconds: 3 * 86_400 });
    expect(estimateTime({ ...base, perChannel: { whatsapp: 200 }, tier }).tierDays).toBe(0);
  });

  it('counts quiet hours only for the recipients they hold, each zone on its own clock', () => {
    const night = { start: '21:00', end: '09:00' };
    // 18:00 UTC: 18:00 in London, 13:00 in New York: nobody is held, the time is the pacing's alone.
    const free = estimateTime({
      ...base,
      perChannel: { whatsapp: 800 },
      quiet: zones(night, ['Europe/London', 400], ['America/New_York', 400]),
    });
    expect(free.time).toMatchObject({ limited_by: 'pacing', seconds: 9.1 });
    expect(free.limits.map((l) => l.limit)).toEqual(['pacing', 'runner']);
    // 21:00 in Moscow: its 100 wait until 06:00 UTC, then go at the campaign's pace (100 at 80/s).
    const held = estimateTime({
      ...base,
      perChannel: { whatsapp: 800 },
      quiet: zones(night, ['Europe/London', 700], ['Europe/Moscow', 100]),
    });
    expect(held.limits).toContainEqual({ limit: 'quiet_hours', recipients: 100, seconds: 12 * 3600 + 1.3 });
    expect(held.time).toMatchObject({ limited_by: 'quiet_hours', seconds: 12 * 3600 + 1.3 });
    // An unknown zone reads as UTC, as the runner reads it.
    const utc = estimateTime({
      ...base,
      perChannel: { telegram: 1 },
      quiet: zones({ start: '17:00', end: '19:00' }, ['Not/AZone', 1]),
    });
    expect(utc.limits).toContainEqual(expect.objectContaining({ limit: 'quiet_hours', recipients: 1 }));
  });

  it('holds the recipients whose sends would run after quiet hours began, not those sent before', () => {
    // 100,000 on Telegram at 30/s take 55 minutes from 18:00 UTC: quiet hours from 18:30 hold the later ones.
    const input = { ...base, perChannel: { telegram: 100_000 } };
    const later = estimateTime({ ...input, quiet: zones({ start: '18:30', end: '20:00' }, ['UTC', 100_000]) });
    const quiet = later.limits.find((l) => l.limit === 'quiet_hours')!;
    // About 54,000 go before 18:30; the rest wait until 20:00, then go at 30/s.
    expect(quiet.recipients).toBeGreaterThan(44_000);
    expect(quiet.recipients).toBeLessThan(47_000);
    expect(later.time.limited_by).toBe('quiet_hours');
    expect(later.time.seconds).toBeCloseTo(2 * 3600 + quiet.recipients! / 30, -2);
    // Quiet hours that begin after the last send hold nobody.
    const after = estimateTime({ ...input, quiet: zones({ start: '19:00', end: '20:00' }, ['UTC', 100_000]) });
    expect(after.limits.map((l) => l.limit)).not.toContain('quiet_hours');
    expect(after.time.seconds).toBeCloseTo(3333, -1);
  });

  it('keeps the tier as the limit when it outlasts quiet hours', () => {
    const t = estimateTime({
      ...base,
      perChannel: { whatsapp: 1500 },
      tier: { cap: 1000, label: '1K', remaining: 1000 },
      quiet: zones({ start: '17:00', end: '19:00' }, ['UTC', 1500]),
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

  it('ends at end_by, counting the recipients whose sends would run after it', () => {
    // 30 at once, then 6 a tick: 174 of 300 are sent within 5 s.
    const endBy = new Date(now.getTime() + 5000);
    const t = estimateTime({ ...base, perChannel: { telegram: 300 }, endBy });
    expect(t.time).toEqual({ seconds: 5, finish_at: at('2026-11-26T18:00:05Z'), limited_by: 'end_by' });
    expect(t.limits).toContainEqual({ limit: 'end_by', recipients: 126, seconds: 5 });
    // An end_by the campaign finishes before changes nothing.
    const early = estimateTime({ ...base, perChannel: { telegram: 300 }, endBy: new Date(now.getTime() + 60_000) });
    expect(early.time).toMatchObject({ seconds: 9.1, limited_by: 'pacing' });
    expect(early.limits.map((l) => l.limit)).not.toContain('end_by');
    // The tier's later days: 200 free today and 1,000 tomorrow go; 1,300 would wait past end_by.
    const tier = { cap: 1000, label: '1K', remaining: 200 };
    const days = estimateTime({
      ...base,
      perChannel: { whatsapp: 2500 },
      tier,
      endBy: new Date(now.getTime() + 1.5 * 86_400_000),
    });
    expect(days.limits).toContainEqual({ limit: 'end_by', recipients: 1300, seconds: 1.5 * 86_400 });
    // Quiet hours until after end_by: the held are not sent.
    const held = estimateTime({
      ...base,
      perChannel: { telegram: 30 },
      quiet: zones({ start: '17:00', end: '19:00' }, ['UTC', 30]),
      endBy: new Date(now.getTime() + 1800_000),
    });
    expect(held.time).toMatchObject({ limited_by: 'end_by', seconds: 1800 });
    expect(held.limits).toContainEqual({ limit: 'end_by', recipients: 30, seconds: 1800 });
  });

  it('takes no time for no recipients', () => {
    expect(estimateTime(base).time).toEqual({
      seconds: 0,
      finish_at: at('2026-11-26T18:00:00Z'),
      limited_by: 'pacing',
    });
  });
});
