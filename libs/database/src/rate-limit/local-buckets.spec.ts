import { LocalBuckets } from './local-buckets';

describe('LocalBuckets', () => {
  let now = 0;
  const clock = () => now;

  it('allows a burst, refuses past it, and refills at the rate', () => {
    now = 0;
    const buckets = new LocalBuckets(10, clock);
    const take = () => buckets.takeNow('a', 2, 3).allowed;
    expect([take(), take(), take(), take()]).toEqual([true, true, true, false]);
    now = 499;
    expect(take()).toBe(false);
    now = 500;
    expect(take()).toBe(true);
    now = 10_000;
    expect(buckets.takeNow('a', 2, 3)).toEqual({ allowed: true, tokens: 2 });
  });

  it('keeps at most maxKeys buckets, forgetting the least recently used', () => {
    now = 0;
    const buckets = new LocalBuckets(2, clock);
    buckets.takeNow('a', 1, 1);
    buckets.takeNow('b', 1, 1);
    expect(buckets.takeNow('a', 1, 1).allowed).toBe(false);
    // 'b' is the least recently used: a new key forgets it, not 'a'.
    buckets.takeNow('c', 1, 1);
    expect(buckets.size).toBe(2);
    expect(buckets.takeNow('a', 1, 1).allowed).toBe(false);
    expect(buckets.takeNow('b', 1, 1).allowed).toBe(true);
  });
});
