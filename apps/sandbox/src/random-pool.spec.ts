import { pooledRandomBytes } from './random-pool';

describe('pooled random bytes', () => {
  it('hands out distinct bytes of the length asked, across refills of the pool', () => {
    const seen = new Set<string>();
    // 27 bytes at a time: about 300 draws per 8 KiB pool, so 2,000 draws cross several refills.
    for (let i = 0; i < 2000; i++) {
      const bytes = pooledRandomBytes(27);
      expect(bytes).toHaveLength(27);
      seen.add(bytes.toString('hex'));
    }
    expect(seen.size).toBe(2000);
  });

  it('keeps what it handed out: a later draw does not change an earlier one', () => {
    const first = Buffer.from(pooledRandomBytes(16));
    const held = pooledRandomBytes(16);
    const copy = Buffer.from(held);
    for (let i = 0; i < 1000; i++) pooledRandomBytes(16);
    expect(held.equals(copy)).toBe(true);
    expect(first.equals(copy)).toBe(false);
  });
});
