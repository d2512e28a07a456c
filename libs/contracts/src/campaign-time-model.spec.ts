import { campaignSchedule, CampaignScheduleInput, passMs, runnerCapacity } from './campaign-time-model';

const base: CampaignScheduleInput = {
  perChannel: {},
  pacing: { whatsapp: 80, telegram: 30, max: 30 },
  rate: null,
  runner: { tick_ms: 200, batch_max: 500, pass_cost: null },
};
const unpaced = { whatsapp: 10_000, telegram: 10_000, max: 10_000 };

describe('campaignSchedule', () => {
  it("ramps as the runner does: the first pass takes one second's pace, then each tick its share", () => {
    // Half a tick's wait, 80 at once, then 16 a tick: the last of 800 goes 45 ticks later (not at 10 s).
    const s = campaignSchedule({ ...base, perChannel: { whatsapp: 800 } });
    expect(s.seconds).toBeCloseTo(9.1, 5);
    expect(s.sentBy(80)).toBeCloseTo(0.1, 5);
    expect(s.sentBy(96)).toBeCloseTo(0.3, 5);
    expect(s.perSecond).toBeCloseTo(80, 5);
  });

  it('caps every pass at the batch maximum, each pass at the next tick after the one before ended', () => {
    // Pacing far above what the runner does: 1,000 a pass, a pass of 1,000 lasting 820 ms, so one a second.
    const runner = { tick_ms: 200, batch_max: 1000, pass_cost: { fixed_ms: 20, per_recipient_ms: 0.8, passes: 50 } };
    const s = campaignSchedule({ ...base, pacing: unpaced, runner, perChannel: { whatsapp: 10_000 } });
    expect(s.seconds).toBeCloseTo(9.92, 5);
    expect(s.perSecond).toBeCloseTo(1000, 5);
    expect(runnerCapacity(runner)).toBeCloseTo(1000, 5);
    // Unmeasured, the same runner would be taken for 1,000 a tick.
    expect(
      campaignSchedule({
        ...base,
        pacing: unpaced,
        runner: { ...runner, pass_cost: null },
        perChannel: { whatsapp: 10_000 },
      }).seconds,
    ).toBeCloseTo(1.9, 5);
    expect(passMs(runner.pass_cost, 500)).toBe(420);
  });

  it("keeps to the campaign's rate over all its channels, the credit a tick could not use carried over", () => {
    // 10 at once, then 2 a tick (10/s): 100 in 9.1 s.
    const s = campaignSchedule({ ...base, perChannel: { whatsapp: 60, telegram: 40 }, rate: 10 });
    expect(s.seconds).toBeCloseTo(9.1, 5);
    // 0.5/s: one every two seconds (a tick counts its credit only as far as the message it took).
    const slow = campaignSchedule({ ...base, perChannel: { max: 3 }, rate: 0.5 });
    expect(slow.seconds).toBeCloseTo(4.1, 1);
  });

  it('sends each channel at its own pacing, the slowest channel last', () => {
    const s = campaignSchedule({ ...base, perChannel: { whatsapp: 160, telegram: 300 } });
    // telegram: 30 at once, then 6 a tick: 45 ticks more.
    expect(s.seconds).toBeCloseTo(9.1, 5);
  });

  it('goes on at the pace of its last passes beyond the passes it replays', () => {
    const s = campaignSchedule({ ...base, pacing: { ...base.pacing, max: 1 }, perChannel: { max: 100_000 } });
    // 1/s: one message every fifth tick; far more messages than passes replayed.
    expect(s.seconds / 100_000).toBeCloseTo(1, 2);
    expect(s.sentBy(50_000)).toBeLessThan(s.seconds);
  });

  it('takes no time for nobody', () => {
    expect(campaignSchedule(base).seconds).toBe(0);
  });
});
