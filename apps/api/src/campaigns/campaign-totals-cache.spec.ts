import { Clock } from '@app/server';
import { CampaignTotalsCache, TOTALS_MAX_AGE_MS, TOTALS_REUSE_FACTOR } from './campaign-totals-cache';
import { CampaignsRepository, CampaignTotals } from './campaigns.repository';

/** A repository whose reads take `readMs` of the fake clock, each answering its own read number. */
function setup(readMs: number) {
  let time = 0;
  const clock = { nowMs: () => time } as Clock;
  const pending: (() => void)[] = [];
  let reads = 0;
  const repo = {
    totals: (): Promise<CampaignTotals> => {
      const n = ++reads;
      return new Promise((resolve) =>
        pending.push(() => {
          time += readMs;
          resolve({ counts: { pending: n } } as unknown as CampaignTotals);
        }),
      );
    },
  } as unknown as CampaignsRepository;
  const cache = new CampaignTotalsCache(repo, clock);
  /** Ends every read under way, then lets their callbacks run. */
  const finish = async () => {
    for (const end of pending.splice(0)) end();
    await Promise.resolve();
    await Promise.resolve();
  };
  return {
    cache,
    finish,
    reads: () => reads,
    advance: (ms: number) => (time += ms),
    pendingOf: async (p: Promise<CampaignTotals>) => (await p).counts.pending,
  };
}

describe('CampaignTotalsCache', () => {
  it('views asked while a read runs share it', async () => {
    const k = setup(10);
    const a = k.cache.get('c1');
    const b = k.cache.get('c1');
    await k.finish();
    expect([await k.pendingOf(a), await k.pendingOf(b)]).toEqual([1, 1]);
    expect(k.reads()).toBe(1);
  });

  it('a read is reused for twenty times as long as it took, then read anew', async () => {
    const k = setup(100);
    const first = k.cache.get('c1');
    await k.finish();
    await first;
    k.advance(100 * TOTALS_REUSE_FACTOR - 1);
    expect(await k.pendingOf(k.cache.get('c1'))).toBe(1);
    k.advance(1);
    const next = k.cache.get('c1');
    await k.finish();
    expect(await k.pendingOf(next)).toBe(2);
  });

  it('a slow read is reused for at most 5 s; a campaign that changed state reads anew', async () => {
    const k = setup(2000);
    const first = k.cache.get('c1');
    await k.finish();
    await first;
    k.advance(TOTALS_MAX_AGE_MS - 1);
    expect(await k.pendingOf(k.cache.get('c1'))).toBe(1);
    k.advance(1);
    const aged = k.cache.get('c1');
    await k.finish();
    expect(await k.pendingOf(aged)).toBe(2);

    k.cache.forget('c1');
    const changed = k.cache.get('c1');
    await k.finish();
    expect(await k.pendingOf(changed)).toBe(3);
  });

  it('each campaign has its own totals, and a failed read is not kept', async () => {
    const k = setup(10);
    const one = k.cache.get('c1');
    const two = k.cache.get('c2');
    await k.finish();
    expect([await k.pendingOf(one), await k.pendingOf(two)]).toEqual([1, 2]);

    const failing = setup(10);
    const repo = (failing.cache as unknown as { repo: { totals: () => Promise<CampaignTotals> } }).repo;
    const totals = repo.totals;
    repo.totals = () => Promise.reject(new Error('connection lost'));
    await expect(failing.cache.get('c1')).rejects.toThrow('connection lost');
    repo.totals = totals;
    const again = failing.cache.get('c1');
    await failing.finish();
    expect(await failing.pendingOf(again)).toBe(1);
  });
});
