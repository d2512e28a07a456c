import { CampaignPassCostMeter, remainingSeconds } from './campaign-pass-cost';

const runner = { tick_ms: 200, batch_max: 1000, pass_cost: null };

describe('CampaignPassCostMeter', () => {
  it('knows nothing before a pass sent', () => {
    const meter = new CampaignPassCostMeter();
    meter.record(0, 12);
    expect(meter.figure()).toBeNull();
  });

  it('fits a fixed cost and a cost per recipient on passes of different sizes', () => {
    const meter = new CampaignPassCostMeter();
    for (const n of [100, 1000, 400, 1000, 250]) meter.record(n, 30 + 0.5 * n);
    expect(meter.figure()).toEqual({ fixed_ms: 30, per_recipient_ms: 0.5, passes: 5 });
  });

  it('puts all of it on the recipients when every pass took as many', () => {
    const meter = new CampaignPassCostMeter();
    for (let i = 0; i < 3; i++) meter.record(1000, 800);
    expect(meter.figure()).toEqual({ fixed_ms: 0, per_recipient_ms: 0.8, passes: 3 });
  });

  it('follows the recent passes: the platform got slower', () => {
    const meter = new CampaignPassCostMeter();
    for (let i = 0; i < 10; i++) meter.record(1000, 500);
    for (let i = 0; i < 60; i++) meter.record(1000, 1000);
    expect(meter.figure()!.per_recipient_ms).toBeGreaterThan(0.95);
  });
});

describe('remainingSeconds', () => {
  it('goes at the rate the campaign kept over the last minute, or since it started', () => {
    expect(remainingSeconds({ pending: 600, lastMinute: 600, runningSeconds: 300, pace: 80, runner })).toBe(60);
    expect(remainingSeconds({ pending: 600, lastMinute: 600, runningSeconds: 20, pace: 80, runner })).toBe(20);
  });

  it('before it sent any: its pace, as far as the runner keeps up', () => {
    expect(remainingSeconds({ pending: 800, lastMinute: 0, runningSeconds: 0, pace: 80, runner })).toBe(10);
    // 1,000 a tick of 200 ms at most: 5,000/s.
    expect(remainingSeconds({ pending: 10_000, lastMinute: 0, runningSeconds: 0, pace: 10_000, runner })).toBe(2);
  });
});
