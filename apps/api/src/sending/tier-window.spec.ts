import { TierGate, TierSnapshot } from './tier-window';

const snapshot = (rows: number, live: string[] = [], expired: string[] = [], exact = false): TierSnapshot => ({
  rows,
  live: new Set(live),
  expired: new Set(expired),
  exact,
});

describe('TierGate', () => {
  it('admits new recipients up to the cap, repeats always', () => {
    const gate = new TierGate(1, 3, snapshot(1, ['a']));
    for (const r of ['b', 'c']) {
      expect(gate.allows(r)).toBe(true);
      gate.admit(r);
    }
    expect(gate.allows('d')).toBe(false);
    expect(gate.allows('a')).toBe(true);
    expect(gate.allows('b')).toBe(true);
    expect(gate.addedRows).toBe(2);
  });

  it('an expired recipient is new for the cap but adds no row (its row is refreshed)', () => {
    const gate = new TierGate(1, 2, snapshot(2, ['a'], ['old']));
    // The counter includes the expired row: full until a sweep makes it exact.
    expect(gate.allows('old')).toBe(false);
    expect(gate.exact).toBe(false);
    gate.replace(snapshot(1, ['a'], [], true));
    expect(gate.allows('old')).toBe(true);
    gate.admit('old');
    expect(gate.addedRows).toBe(1);
    expect(gate.allows('new')).toBe(false);
  });

  it('what was admitted before a sweep stays admitted after it', () => {
    const gate = new TierGate(1, 2, snapshot(1, [], ['x']));
    gate.admit('x');
    expect(gate.addedRows).toBe(0);
    gate.replace(snapshot(0, [], [], true));
    expect(gate.addedRows).toBe(1);
    expect(gate.allows('x')).toBe(true);
    expect(gate.allows('y')).toBe(true);
    gate.admit('y');
    expect(gate.allows('z')).toBe(false);
    expect(gate.recipients).toEqual(['x', 'y']);
  });
});
