import { RecordWindow } from './record-window';

describe('RecordWindow', () => {
  it('keeps the most recent records up to its size, and counts every one', () => {
    const w = new RecordWindow<number>(10);
    for (let i = 1; i <= 1000; i++) w.push(i);
    expect(w.kept()).toEqual([991, 992, 993, 994, 995, 996, 997, 998, 999, 1000]);
    expect(w.counts()).toEqual({ total: 1000, kept: 10 });
    expect(w.filter((n) => n % 2 === 0)).toEqual([992, 994, 996, 998, 1000]);
    w.clear();
    expect(w.counts()).toEqual({ total: 0, kept: 0 });
  });
});
