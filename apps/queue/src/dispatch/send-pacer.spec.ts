import { PacingAbortedError, SendPacer } from './send-pacer';
import { LocalSenderSlots, SenderSlots } from './sender-slots';

async function grants(pacer: SendPacer, calls: [string, string][]): Promise<number[]> {
  const t0 = Date.now();
  return Promise.all(
    calls.map(([s, r]) =>
      pacer.acquire(s, r).then((lease) => {
        lease.done();
        return Date.now() - t0;
      }),
    ),
  );
}

describe('SendPacer', () => {
  it('spaces one sender evenly at its rate, and leaves another sender unaffected', async () => {
    const pacer = new SendPacer({ ratePerSender: 50, burst: 1, recipientIntervalMs: 0 }, Date.now);
    const calls: [string, string][] = Array.from({ length: 11 }, (_, i) => ['s1', `r${i}`]);
    const [times, other] = await Promise.all([grants(pacer, calls), grants(pacer, [['s2', 'r0']])]);
    const sorted = [...times].sort((a, b) => a - b);
    // 11 messages at 50/s: the k-th goes no sooner than k slots of 20 ms. (Pairwise gaps are not
    // asserted: a timer that fires late narrows the next gap without any slot being early.)
    sorted.forEach((t, k) => expect(t).toBeGreaterThanOrEqual(k * 20 - 2));
    // The other sender's first message does not wait for the first sender's slots.
    expect(other[0]).toBeLessThan(sorted[10]);
  });

  it('lets a burst through at once, then applies the rate', async () => {
    const pacer = new SendPacer({ ratePerSender: 20, burst: 5, recipientIntervalMs: 0 }, Date.now);
    const times = await grants(
      pacer,
      Array.from({ length: 6 }, (_, i) => ['s', `r${i}`] as [string, string]),
    );
    // Five go at once (the burst); the sixth waits for the next slot, 50 ms after the first.
    const sorted = [...times].sort((a, b) => a - b);
    expect(sorted[5]).toBeGreaterThanOrEqual(48);
    expect(sorted[4]).toBeLessThan(sorted[5]);
  });

  it('keeps the least interval between two messages to one recipient from one sender', async () => {
    const pacer = new SendPacer({ ratePerSender: 1000, burst: 1, recipientIntervalMs: 100 }, Date.now);
    const times = await grants(pacer, [
      ['s', 'a'],
      ['s', 'a'],
      ['s', 'a'],
      ['s', 'b'],
    ]);
    const a = times.slice(0, 3).sort((x, y) => x - y);
    expect(a[1] - a[0]).toBeGreaterThanOrEqual(95);
    expect(a[2] - a[1]).toBeGreaterThanOrEqual(95);
    // Another recipient of the same sender is not held behind recipient a.
    expect(times[3]).toBeLessThan(50);
  });

  it('holds a paused sender until the pause ends and reports it', async () => {
    const pacer = new SendPacer({ ratePerSender: 1000, burst: 1, recipientIntervalMs: 0 }, Date.now);
    const until = Date.now() + 150;
    pacer.pause('s', until);
    expect(Object.keys(pacer.pausedSenders())).toEqual(['s']);
    await grants(pacer, [['s', 'x']]);
    // Measured from the pause itself: a busy machine may start the wait some milliseconds late.
    expect(Date.now()).toBeGreaterThanOrEqual(until - 2);
    expect(pacer.pausedSenders()).toEqual({});
  });

  it('gives up a wait when the worker stops', async () => {
    const pacer = new SendPacer({ ratePerSender: 1000, burst: 1, recipientIntervalMs: 0 }, Date.now);
    pacer.pause('s', Date.now() + 10_000);
    const ctl = new AbortController();
    const pending = pacer.acquire('s', 'x', ctl.signal);
    ctl.abort();
    await expect(pending).rejects.toBeInstanceOf(PacingAbortedError);
  });

  it('counts the recipient interval from the end of the previous call, however long it took', async () => {
    const pacer = new SendPacer({ ratePerSender: 1000, burst: 1, recipientIntervalMs: 100 }, Date.now);
    const t0 = Date.now();
    const first = await pacer.acquire('s', 'a');
    const second = pacer.acquire('s', 'a').then((lease) => {
      lease.done();
      return Date.now() - t0;
    });
    // The first call takes 250 ms (a slow channel): the second waits for it, then the interval.
    await new Promise((r) => setTimeout(r, 250));
    first.done();
    expect(await second).toBeGreaterThanOrEqual(345);
  });

  it('frees the recipient lane when a wait is given up, so the next message is not stuck behind it', async () => {
    const pacer = new SendPacer({ ratePerSender: 1000, burst: 1, recipientIntervalMs: 100 }, Date.now);
    pacer.pause('s', Date.now() + 200);
    const ctl = new AbortController();
    const given = pacer.acquire('s', 'x', ctl.signal);
    ctl.abort();
    await expect(given).rejects.toBeInstanceOf(PacingAbortedError);
    const t0 = Date.now();
    const next = await pacer.acquire('s', 'x');
    next.done();
    // It waits for the sender's pause only, not for an interval after the abandoned message.
    expect(Date.now() - t0).toBeLessThan(300);
  });
});

describe('SendPacer lanes', () => {
  it('gives the next slot of a sender to a service message over marketing messages already waiting', async () => {
    const pacer = new SendPacer({ ratePerSender: 50, burst: 1, recipientIntervalMs: 0 }, Date.now);
    const order: string[] = [];
    const take = (id: string, lane: 'service' | 'marketing') =>
      pacer.acquire('s', id, undefined, lane).then(() => order.push(id));
    const marketing = Array.from({ length: 6 }, (_, i) => take(`m${i}`, 'marketing'));
    await new Promise((r) => setTimeout(r, 30)); // the marketing backlog is in hand and paced
    const service = take('utility', 'service');
    await Promise.all([...marketing, service]);
    // At most the slot already being waited on goes to marketing before the service message.
    expect(order.indexOf('utility')).toBeLessThanOrEqual(3);
    expect(order.indexOf('utility')).toBeLessThan(order.indexOf('m5'));
  });
});

describe('SendPacer.admit', () => {
  // 10 messages/s: a sender and lane holds at most ceil(10 * 0.6) + 1 = 7 messages in hand.
  const limits = { ratePerSender: 10, burst: 1, recipientIntervalMs: 0 };
  const first = { mayDefer: true, firstDelivery: true };
  const setup = () => {
    const time = { now: 1_000_000 };
    const calls: number[] = [];
    const local = new LocalSenderSlots(limits, () => time.now);
    const slots: SenderSlots = {
      reserve: (s, n) => local.reserve(s, n),
      pause: (s, u) => local.pause(s, u),
      promise: (s, lane, n, ahead) => {
        calls.push(n);
        return local.promise(s, lane, n, ahead);
      },
    };
    return { pacer: new SendPacer(limits, () => time.now, slots), time, calls };
  };

  it("holds a sender's messages up to its cap, and sends the rest back to the stream until shortly before slots promised at its rate, in one store call", async () => {
    const { pacer, calls } = setup();
    expect(pacer.holdCap).toBe(7);
    const held = await Promise.all(Array.from({ length: 7 }, () => pacer.admit('a', 'service', first)));
    expect(held.every((h) => h.held)).toBe(true);
    const deferred = await Promise.all(Array.from({ length: 3 }, () => pacer.admit('a', 'service', first)));
    // Promised 600, 700 and 800 ms ahead (after the held ones' slots), back 300 ms before each.
    expect(deferred).toEqual([300, 400, 500].map((deferMs) => ({ held: false, deferMs })));
    expect(calls).toEqual([3]);
  });

  it("another sender, and the same sender's other lane, are held while one sender and lane is deferred", async () => {
    const { pacer } = setup();
    for (let i = 0; i < 7; i++) await pacer.admit('a', 'marketing', first);
    expect((await pacer.admit('a', 'marketing', first)).held).toBe(false);
    expect((await pacer.admit('b', 'marketing', first)).held).toBe(true);
    expect((await pacer.admit('a', 'service', first)).held).toBe(true);
  });

  it("a new message goes behind its sender's deferred ones even when a place frees; one that comes back is held", async () => {
    const { pacer } = setup();
    const held = [];
    for (let i = 0; i < 7; i++) held.push(await pacer.admit('a', 'service', first));
    for (let i = 0; i < 5; i++) await pacer.admit('a', 'service', first);
    const h = held[0];
    if (h.held) h.release();
    // Promises run to 1.1 s ahead: a first delivery is promised the slot after them, back 300 ms before it.
    expect(await pacer.admit('a', 'service', first)).toEqual({ held: false, deferMs: 800 });
    expect((await pacer.admit('a', 'service', { mayDefer: true, firstDelivery: false })).held).toBe(true);
  });

  it("a message that comes back to a full cap waits the cap's worth once more; one that may not wait on the stream any more is held", async () => {
    const { pacer } = setup();
    for (let i = 0; i < 7; i++) await pacer.admit('a', 'service', first);
    expect(await pacer.admit('a', 'service', { mayDefer: true, firstDelivery: false })).toEqual({
      held: false,
      deferMs: 600,
    });
    expect((await pacer.admit('a', 'service', { mayDefer: false, firstDelivery: false })).held).toBe(true);
  });
});
