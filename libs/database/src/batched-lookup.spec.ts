import { BatchedLookup } from './batched-lookup';

describe('BatchedLookup', () => {
  it('lookups made while one runs share the next load, each answered with the rows of its own key', async () => {
    const loads: number[][] = [];
    let release!: () => void;
    const first = new Promise<void>((r) => (release = r));
    const rows = [
      { id: 1, v: 'a' },
      { id: 2, v: 'b' },
      { id: 2, v: 'c' },
    ];
    const lookup = new BatchedLookup<number, { id: number; v: string }>({
      load: async (ids) => {
        loads.push(ids);
        if (loads.length === 1) await first;
        return rows.filter((r) => ids.includes(r.id));
      },
      queryKey: String,
      rowKey: (r) => String(r.id),
    });
    const a = lookup.one(1);
    await new Promise((r) => setImmediate(r));
    const rest = [lookup.all(2), lookup.one(3), lookup.one(2)];
    release();
    expect(await a).toEqual({ id: 1, v: 'a' });
    expect(await Promise.all(rest)).toEqual([
      [
        { id: 2, v: 'b' },
        { id: 2, v: 'c' },
      ],
      null,
      { id: 2, v: 'b' },
    ]);
    // The second load asks each distinct key once.
    expect(loads).toEqual([[1], [2, 3]]);
  });

  it('a failed load fails the lookups it carried, not later ones', async () => {
    let fail = true;
    const lookup = new BatchedLookup<string, string>({
      load: async (keys) => {
        if (fail) throw new Error('down');
        return keys;
      },
      queryKey: (k) => k,
      rowKey: (r) => r,
    });
    await expect(lookup.one('x')).rejects.toThrow('down');
    fail = false;
    await expect(lookup.one('x')).resolves.toBe('x');
  });
});
