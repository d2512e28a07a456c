import { GroupCommit } from './group-commit';

describe('GroupCommit', () => {
  it('items arriving while a flush runs go together in the next one, each answered with its own result', async () => {
    const flushed: number[][] = [];
    let release!: () => void;
    const first = new Promise<void>((r) => (release = r));
    const group = new GroupCommit<number, string>(async (_key, items) => {
      flushed.push(items);
      if (flushed.length === 1) await first;
      return items.map((i) => `r${i}`);
    }, 100);
    const a = group.submit('u', 1);
    await new Promise((r) => setImmediate(r));
    const rest = [2, 3, 4].map((i) => group.submit('u', i));
    release();
    expect(await Promise.all([a, ...rest])).toEqual(['r1', 'r2', 'r3', 'r4']);
    expect(flushed).toEqual([[1], [2, 3, 4]]);
  });

  it('keys flush independently, batches respect the maximum, a failed flush fails only its items', async () => {
    const flushed: string[] = [];
    const group = new GroupCommit<number, number>(async (key, items) => {
      flushed.push(`${key}:${items.join(',')}`);
      if (key === 'bad') throw new Error('boom');
      return items;
    }, 2);
    const ok = [1, 2, 3].map((i) => group.submit('good', i));
    const bad = group.submit('bad', 9);
    expect(await Promise.all(ok)).toEqual([1, 2, 3]);
    await expect(bad).rejects.toThrow('boom');
    expect(flushed.sort()).toEqual(['bad:9', 'good:1,2', 'good:3']);
  });

  it('flushed() waits for everything submitted so far', async () => {
    const written: number[] = [];
    const group = new GroupCommit<number, number>(async (_key, items) => {
      await new Promise((r) => setTimeout(r, 20));
      written.push(...items);
      return items;
    }, 2);
    for (const i of [1, 2, 3]) void group.submit('k', i);
    await group.flushed();
    expect(written).toEqual([1, 2, 3]);
  });
});
