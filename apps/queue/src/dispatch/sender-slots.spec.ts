import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import { KV, KvEntry } from '@nats-io/kv';
import { freshSlotState, promiseSlots, SharedSenderSlots, takeSlots } from './sender-slots';

const limits = { ratePerSender: 100, burst: 1, recipientIntervalMs: 0 };

/** The part of a Key-Value bucket the shared slots use, with revisions and compare-and-set. */
class MemoryKv {
  private readonly values = new Map<string, { value: Uint8Array; revision: number }>();
  private revision = 0;
  /** Runs once before the next write: another replica writing in between. */
  beforeWrite?: () => Promise<void>;

  get(key: string): Promise<KvEntry | null> {
    const v = this.values.get(key);
    return Promise.resolve(
      v
        ? ({ value: v.value, revision: v.revision, operation: 'PUT', length: v.value.length } as unknown as KvEntry)
        : null,
    );
  }
  async create(key: string, value: Uint8Array): Promise<number> {
    return this.update(key, value, 0);
  }
  async update(key: string, value: Uint8Array, revision: number): Promise<number> {
    const race = this.beforeWrite;
    this.beforeWrite = undefined;
    await race?.();
    if ((this.values.get(key)?.revision ?? 0) !== revision) {
      throw new JetStreamApiError({
        code: 400,
        err_code: JetStreamApiCodes.StreamWrongLastSequence,
        description: 'wrong last sequence',
      });
    }
    this.values.set(key, { value, revision: ++this.revision });
    return this.revision;
  }
}

describe('takeSlots', () => {
  it('gives consecutive slots one interval apart and continues from where the last reservation ended', () => {
    const first = takeSlots(freshSlotState(), 3, 1000, limits);
    expect(first.slots).toEqual([1000, 1010, 1020]);
    expect(takeSlots(first.state, 2, 1000, limits).slots).toEqual([1030, 1040]);
  });

  it('never gives a slot inside a pause', () => {
    expect(takeSlots({ ...freshSlotState(), pausedUntil: 5000 }, 2, 1000, limits).slots).toEqual([5000, 5010]);
  });
});

describe('SharedSenderSlots', () => {
  it('two replicas reserving at the same moment get disjoint slots: the loser of the compare-and-set reads again', async () => {
    const kv = new MemoryKv();
    const now = () => 1000;
    const a = new SharedSenderSlots(kv as unknown as KV, 'whatsapp', limits, now);
    const b = new SharedSenderSlots(kv as unknown as KV, 'whatsapp', limits, now);
    let fromB: number[] = [];
    kv.beforeWrite = async () => {
      fromB = await b.reserve('s1', 2);
    };
    const fromA = await a.reserve('s1', 2);
    expect(fromB).toEqual([1000, 1010]);
    expect(fromA).toEqual([1020, 1030]);
  });

  it("a pause written by one replica holds the other's next slots", async () => {
    const kv = new MemoryKv();
    const now = () => 1000;
    const a = new SharedSenderSlots(kv as unknown as KV, 'whatsapp', limits, now);
    const b = new SharedSenderSlots(kv as unknown as KV, 'whatsapp', limits, now);
    await a.pause('s1', 9000);
    expect(await b.reserve('s1', 1)).toEqual([9000]);
    expect(await b.reserve('other', 1)).toEqual([1000]);
  });
});

describe('promiseSlots', () => {
  it('promises a lane slots at the rate after what the held messages take and after earlier promises; marketing after service', () => {
    const first = promiseSlots(freshSlotState(), 'service', 2, 1000, 600, limits);
    expect(first.promised).toEqual([1600, 1610]);
    const more = promiseSlots(first.state, 'service', 1, 1000, 600, limits);
    expect(more.promised).toEqual([1620]);
    // Marketing goes after everything promised to the service lane.
    expect(promiseSlots(more.state, 'marketing', 1, 1000, 600, limits).promised).toEqual([1630]);
    // Never inside a pause or before the slots already reserved.
    expect(promiseSlots({ ...freshSlotState(), pausedUntil: 9000 }, 'service', 1, 1000, 600, limits).promised).toEqual([
      9000,
    ]);
  });

  it('shared: every replica continues the promises of the others, and a value written without promises still reads', async () => {
    const kv = new MemoryKv();
    const now = () => 1000;
    const a = new SharedSenderSlots(kv as unknown as KV, 'whatsapp', limits, now);
    const b = new SharedSenderSlots(kv as unknown as KV, 'whatsapp', limits, now);
    await kv.create('whatsapp.s1', new TextEncoder().encode('1500:0'));
    expect(await a.promise('s1', 'service', 2, 100)).toEqual([1500, 1510]);
    expect(await b.promise('s1', 'service', 1, 100)).toEqual([1520]);
    // Reserving slots keeps the promises.
    await a.reserve('s1', 1);
    expect(await b.promise('s1', 'service', 1, 100)).toEqual([1530]);
  });
});
