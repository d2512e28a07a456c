import { RecentSet } from './recent-set';

describe('RecentSet', () => {
  it('keeps its newest members and forgets the oldest past its size', () => {
    const set = new RecentSet<number>(2);
    set.add(1);
    set.add(2);
    set.add(2);
    expect([1, 2].map((n) => set.has(n))).toEqual([true, true]);
    set.add(3);
    expect([1, 2, 3].map((n) => set.has(n))).toEqual([false, true, true]);
  });
});
