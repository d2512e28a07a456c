import { Clock } from '@app/server';
import { PurgedMediaCleaner } from './retention-media';
import { PurgedMessage, RetentionRepository } from './retention.repository';
import { ConversationRetention } from './retention.service';

const NOW = 1_800_000_000_000;
const DAY_MS = 24 * 3600 * 1000;

describe('ConversationRetention', () => {
  it("purges each due account's content in bounded batches, at its own cutoff, deleting files first", async () => {
    const batches: PurgedMessage[][] = [
      Array.from({ length: 500 }, (_, i) => ({ id: `m${i}`, media: i === 0 ? { handle: 'h' } : null })),
      [{ id: 'm500', media: null }],
      [{ id: 'n0', media: null }],
    ];
    const forgotten: PurgedMessage[][] = [];
    const repo = {
      accountsWithDueContent: jest.fn().mockResolvedValueOnce([
        { id: 'a1', days: 7 },
        { id: 'a2', days: 0 },
      ]),
      purgeBatch: jest.fn(
        async (
          _a: string,
          _c: Date,
          _n: Date,
          _l: number,
          forget: (m: PurgedMessage[], db: never) => Promise<void>,
        ) => {
          const batch = batches.shift()!;
          await forget(
            batch.filter((m) => m.media !== null),
            {} as never,
          );
          return batch;
        },
      ),
      // Kept contents of failover sends: a full batch, then the rest.
      purgeKeptContents: jest.fn().mockResolvedValueOnce(500).mockResolvedValueOnce(3),
    };
    const media = { forget: jest.fn(async (m: PurgedMessage[]) => void forgotten.push(m)) };
    const clock = { now: () => new Date(NOW), nowMs: () => NOW } as Clock;
    const retention = new ConversationRetention(
      repo as unknown as RetentionRepository,
      media as unknown as PurgedMediaCleaner,
      clock,
    );

    expect(await retention.purgeNow()).toBe(502);
    expect(repo.purgeBatch.mock.calls.map((c) => [c[0], (c[1] as Date).getTime(), c[3]])).toEqual([
      ['a1', NOW - 7 * DAY_MS, 500],
      ['a1', NOW - 7 * DAY_MS, 500],
      ['a2', NOW, 500],
    ]);
    expect(forgotten).toEqual([[{ id: 'm0', media: { handle: 'h' } }], [], []]);
    expect(repo.purgeKeptContents.mock.calls.map((c) => [(c[0] as Date).getTime(), c[1]])).toEqual([
      [NOW, 500],
      [NOW, 500],
    ]);
  });
});
