import {
  BACKLOG_LOOKUPS_PER_LOOK,
  BACKLOG_MAX_KEYS,
  InboundBacklog,
  RelayProgress,
  SEEN_SETTLE_LOOKS,
} from './inbound-backlog';

describe('InboundBacklog', () => {
  let floor: number;
  let lastSeq: number;
  let looks: boolean[];
  /** Key -> the last sequence INBOUND holds under it. */
  let inbound: Map<string, number>;
  let lookups: string[];
  let backlog: InboundBacklog;
  const progress = async (withLastSeq: boolean): Promise<RelayProgress> => {
    looks.push(withLastSeq);
    return { ackFloor: floor, lastSeq: withLastSeq ? lastSeq : undefined };
  };
  const lastStored = async (key: string) => {
    lookups.push(key);
    return inbound.get(key) ?? null;
  };
  const settle = () => new Promise((r) => setTimeout(r, 30));
  /** Waits for what a look does, however late a loaded machine runs the look's timer. */
  const until = async (done: () => boolean) => {
    for (const end = Date.now() + 5_000; !done(); await new Promise((r) => setTimeout(r, 5))) {
      if (Date.now() > end) throw new Error('not within 5 s');
    }
  };

  beforeEach(() => {
    floor = 0;
    lastSeq = 0;
    looks = [];
    inbound = new Map();
    lookups = [];
    backlog = new InboundBacklog({ progress, lastStored }, 5);
  });
  afterEach(() => backlog.stop());

  it('lets nothing pass before it has looked at the relay, then waits for what an earlier process left', async () => {
    lastSeq = 40;
    floor = 30;
    expect(backlog.mayPass('message:a')).toBe(false);
    backlog.start();
    await settle();
    expect(looks[0]).toBe(true);
    // INBOUND held messages up to 40 when the process started: nothing passes until the relay took them.
    expect(backlog.mayPass('message:a')).toBe(false);
    floor = 40;
    await settle();
    expect(backlog.mayPass('message:a')).toBe(true);
  });

  it("holds back only the keys of what this process stored, until the relay's floor passes their sequence", async () => {
    backlog.start();
    await settle();
    let release!: (v: { seq: number }) => void;
    const stored = backlog.storing('message:a', () => new Promise<{ seq: number }>((r) => (release = r)));
    // Under way, its sequence not yet known: the key waits.
    expect(backlog.mayPass('message:a')).toBe(false);
    expect(backlog.mayPass('message:b')).toBe(true);
    release({ seq: 7 });
    await stored;
    floor = 6;
    await settle();
    expect(backlog.mayPass('message:a')).toBe(false);
    floor = 7;
    await settle();
    expect(backlog.mayPass('message:a')).toBe(true);
    const quiet = looks.length;
    await settle();
    // Nothing waits: no more looks.
    expect(looks.length).toBe(quiet);
  });

  it('a key stored twice waits for its later store', async () => {
    backlog.start();
    await settle();
    await backlog.storing('other', async () => ({ seq: 3 }));
    await backlog.storing('other', async () => ({ seq: 9 }));
    floor = 3;
    await settle();
    expect(backlog.mayPass('other')).toBe(false);
    floor = 9;
    await settle();
    expect(backlog.mayPass('other')).toBe(true);
  });

  it('a failed store still holds its key back, to the highest sequence seen', async () => {
    backlog.start();
    await settle();
    await backlog.storing('message:a', async () => ({ seq: 12 }));
    await expect(
      backlog.storing('message:b', async () => {
        throw new Error('no answer');
      }),
    ).rejects.toThrow('no answer');
    floor = 11;
    await settle();
    expect(backlog.mayPass('message:b')).toBe(false);
    floor = 12;
    await settle();
    expect(backlog.mayPass('message:b')).toBe(true);
  });

  it('past the keys it remembers, holds every key back until the relay passes the last store', async () => {
    backlog.start();
    await settle();
    for (let i = 1; i <= BACKLOG_MAX_KEYS + 1; i++) await backlog.storing(`message:${i}`, async () => ({ seq: i }));
    expect(backlog.mayPass('message:never-stored')).toBe(false);
    floor = BACKLOG_MAX_KEYS;
    await settle();
    expect(backlog.mayPass('message:never-stored')).toBe(false);
    floor = BACKLOG_MAX_KEYS + 1;
    await settle();
    expect(backlog.mayPass('message:never-stored')).toBe(true);
    expect(backlog.mayPass('message:1')).toBe(true);
  });

  it('keeps looking while the relay cannot be asked', async () => {
    let failing = true;
    backlog = new InboundBacklog(
      {
        progress: async (withLastSeq) => {
          if (failing) throw new Error('no responders');
          return progress(withLastSeq);
        },
        lastStored,
      },
      5,
    );
    backlog.start();
    await settle();
    expect(backlog.mayPass('message:a')).toBe(false);
    failing = false;
    await settle();
    expect(backlog.mayPass('message:a')).toBe(true);
  });

  it('holds back a key another replica stored, from the moment its store is seen until the relay passes it', async () => {
    backlog.start();
    await settle();
    backlog.observed('message:c');
    // Seen as it is published: the key waits at once, before INBOUND is asked anything.
    expect(backlog.mayPass('message:c')).toBe(false);
    expect(lookups).toEqual([]);
    expect(backlog.mayPass('message:d')).toBe(true);
    inbound.set('message:c', 15);
    await until(() => lookups.length > 0);
    floor = 14;
    await settle();
    expect(backlog.mayPass('message:c')).toBe(false);
    floor = 15;
    await until(() => backlog.mayPass('message:c'));
    expect(lookups).toEqual(['message:c']);
  });

  it('lets a seen key pass once INBOUND holds nothing under it, whatever the floor', async () => {
    backlog.start();
    await settle();
    backlog.observed('message:e');
    // Relayed already (or never kept): nothing to wait for, though the floor is behind.
    await until(() => backlog.mayPass('message:e'));
    expect(lookups).toEqual(['message:e']);
  });

  it('does not ask INBOUND about a store seen until it has had ten looks to land there', async () => {
    backlog.start();
    await settle();
    backlog.observed('message:f');
    const seenAt = Date.now();
    await until(() => lookups.length > 0);
    expect(Date.now() - seenAt).toBeGreaterThanOrEqual(5 * SEEN_SETTLE_LOOKS - 1);
    expect(lookups).toEqual(['message:f']);
  });

  it("asks once for many stores seen at once: each waits for the stream's last sequence", async () => {
    // The clock stands still, so that all of them are seen in the same millisecond.
    jest.useFakeTimers();
    try {
      backlog.start();
      await jest.advanceTimersByTimeAsync(5);
      const keys = Array.from({ length: BACKLOG_LOOKUPS_PER_LOOK + 1 }, (_, i) => `message:many-${i}`);
      for (const key of keys) backlog.observed(key);
      lastSeq = 500;
      floor = 499;
      await jest.advanceTimersByTimeAsync(5 * SEEN_SETTLE_LOOKS);
      expect(lookups).toEqual([]);
      expect(looks[0]).toBe(true);
      expect(looks[looks.length - 1]).toBe(true);
      expect(keys.some((key) => backlog.mayPass(key))).toBe(false);
      floor = 500;
      await jest.advanceTimersByTimeAsync(5);
      expect(keys.every((key) => backlog.mayPass(key))).toBe(true);
    } finally {
      backlog.stop();
      jest.useRealTimers();
    }
  });

  it('after its connection was away, holds every key back until the relay passes what the stream holds then', async () => {
    backlog.start();
    await until(() => backlog.mayPass('message:g'));
    // Another replica stored while this one could not see it.
    lastSeq = 60;
    floor = 50;
    backlog.unseenStores();
    expect(backlog.mayPass('message:g')).toBe(false);
    await settle();
    expect(backlog.mayPass('message:g')).toBe(false);
    floor = 60;
    await until(() => backlog.mayPass('message:g'));
  });

  it('a key seen stored again while INBOUND is asked about it waits to be asked again', async () => {
    let answer!: (seq: number | null) => void;
    backlog = new InboundBacklog(
      {
        progress,
        lastStored: (key) => {
          lookups.push(key);
          if (lookups.length > 1) return Promise.resolve(null);
          // Another replica stores under the key while the first answer (nothing yet) is on its way.
          backlog.observed(key);
          return new Promise((r) => (answer = r));
        },
      },
      40,
    );
    backlog.start();
    await settle();
    backlog.observed('message:h');
    await until(() => lookups.length > 0);
    answer(null);
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(backlog.mayPass('message:h')).toBe(false);
    await until(() => backlog.mayPass('message:h'));
    expect(lookups).toEqual(['message:h', 'message:h']);
  });
});
