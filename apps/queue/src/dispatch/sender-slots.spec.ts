import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import { KV, KvEntry } from '@nats-io/kv';
import { SharedSenderSlots, takeSlots } from './sender-slots';

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
    const first = takeSlots({ tat: 0, pausedUntil: 0 }, 3, 1000, limits);
    expect(first.slots).toEqual([1000, 1010, 1020]);
    expect(takeSlots(first.state, 2, 1000, limits).slots).toEqual([1030, 1040]);
  });

  it('never gives a slot inside a pause', () => {
    expect(takeSlots({ tat: 0, pausedUntil: 5000 }, 2, 1000, limits).slots).toEqual([5000, 5010]);
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
