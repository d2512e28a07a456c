import { StatusRelayOrder } from './status-relay-order';

describe('StatusRelayOrder', () => {
  /** Subject -> the sequences INBOUND holds under it. */
  let inbound: Map<string, number[]>;
  let order: StatusRelayOrder;
  const nextStored = async (subject: string, from: number) =>
    (inbound.get(subject) ?? []).filter((seq) => seq >= from).sort((a, b) => a - b)[0] ?? null;
  const hold = (subject: string, ...seqs: number[]) => inbound.set(subject, seqs);
  /** A step that publishes when every earlier status is relayed, once `release` is called. */
  const step = () => {
    let release!: () => void;
    const published: string[] = [];
    const released = new Promise<void>((r) => (release = r));
    const run = async (earlierRelayed: Promise<boolean>) => {
      if (!(await earlierRelayed)) return false;
      await released;
      published.push('published');
      return true;
    };
    return { run, release, published };
  };

  beforeEach(() => {
    inbound = new Map();
    order = new StatusRelayOrder(nextStored);
  });

  it('publishes a status with nothing earlier of its message in INBOUND', async () => {
    hold('s.a', 7);
    const a = step();
    a.release();
    await expect(order.relay({ subject: 's.a', seq: 7 }, a.run)).resolves.toBe(true);
    expect(a.published).toEqual(['published']);
  });

  it('sends a status back while an earlier one of its message is with another replica or waits for a retry', async () => {
    hold('s.a', 3, 7);
    const a = step();
    a.release();
    await expect(order.relay({ subject: 's.a', seq: 7 }, a.run)).resolves.toBe(false);
    expect(a.published).toEqual([]);
    // Another message's earlier status changes nothing.
    hold('s.b', 2);
    hold('s.a', 7);
    const b = step();
    b.release();
    await expect(order.relay({ subject: 's.a', seq: 7 }, b.run)).resolves.toBe(true);
  });

  it('follows an earlier status ahead of it in this process, once that one is relayed', async () => {
    hold('s.a', 3, 5, 7);
    const [first, second, third] = [step(), step(), step()];
    const relayed = [3, 5, 7].map((seq, i) => order.relay({ subject: 's.a', seq }, [first, second, third][i].run));
    const finished: number[] = [];
    relayed.forEach((r, i) => void r.then(() => finished.push([3, 5, 7][i])));
    third.release();
    second.release();
    await new Promise((r) => setTimeout(r, 10));
    expect([first, second, third].map((s) => s.published.length)).toEqual([0, 0, 0]);
    first.release();
    await expect(Promise.all(relayed)).resolves.toEqual([true, true, true]);
    expect(finished).toEqual([3, 5, 7]);
  });

  it('sends a status back when the earlier one ahead of it fails', async () => {
    hold('s.a', 3, 5);
    const failing = order.relay({ subject: 's.a', seq: 3 }, async () => {
      throw new Error('no owner');
    });
    const later = step();
    later.release();
    await expect(order.relay({ subject: 's.a', seq: 5 }, later.run)).resolves.toBe(false);
    await expect(failing).rejects.toThrow('no owner');
  });

  it('takes an earlier status it relayed itself as relayed while INBOUND still shows it', async () => {
    hold('s.a', 3);
    const first = step();
    first.release();
    await expect(order.relay({ subject: 's.a', seq: 3 }, first.run)).resolves.toBe(true);
    // Its acknowledgement has not reached the stream yet.
    hold('s.a', 3, 8);
    const later = step();
    later.release();
    await expect(order.relay({ subject: 's.a', seq: 8 }, later.run)).resolves.toBe(true);
  });

  it('does not follow an earlier status that this process took after it (a redelivery later in a batch)', async () => {
    hold('s.a', 3, 5);
    const later = step();
    const relayedLater = order.relay({ subject: 's.a', seq: 5 }, later.run);
    const earlier = step();
    const relayedEarlier = order.relay({ subject: 's.a', seq: 3 }, earlier.run);
    later.release();
    earlier.release();
    await expect(relayedLater).resolves.toBe(false);
    await expect(relayedEarlier).resolves.toBe(true);
  });
});
