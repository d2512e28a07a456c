import { toUnits } from '../billing/charges';
import { fitBudget } from './campaign-budget';

const u = toUnits;
const needs = (...prices: number[]) => prices.map((p, i) => ({ seq: i + 1, need: u(p) }));

describe('campaign budget', () => {
  it('counts held + captured + reserved exactly: twenty sends of 0.05 fill 1.00 with no float drift', () => {
    const fit = fitBudget(u(1), { held: 0n, captured: 0n, reserved: 0n }, needs(...Array(25).fill(0.05)));
    expect(fit.send).toHaveLength(20);
    expect(fit.rest).toEqual([21, 22, 23, 24, 25]);
    // Nothing captured yet: the campaign waits for holds to settle.
    expect(fit.verdict).toEqual({ kind: 'wait', need: u(0.05), left: u(1) });
  });

  it('a released hold frees room; what was captured alone leaving none pauses', () => {
    const freed = fitBudget(u(1), { held: u(0.5), captured: u(0.45), reserved: 0n }, needs(0.05, 0.05));
    expect(freed).toMatchObject({ send: [1], rest: [2], verdict: { kind: 'wait' } });
    const spent = fitBudget(u(1), { held: 0n, captured: u(1), reserved: 0n }, needs(0.05));
    expect(spent).toEqual({ send: [], rest: [1], verdict: { kind: 'pause', need: u(0.05), left: 0n } });
    const reserved = fitBudget(u(1), { held: 0n, captured: u(0.9), reserved: u(0.1) }, needs(0.05));
    expect(reserved.verdict).toMatchObject({ kind: 'wait' });
  });

  it('keeps the audience order: a recipient that does not fit holds back those after it', () => {
    const fit = fitBudget(u(0.1), { held: 0n, captured: 0n, reserved: 0n }, needs(0.05, 0.08, 0.02));
    expect(fit).toMatchObject({ send: [1], rest: [2, 3] });
  });
});
