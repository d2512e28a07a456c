import { randomUUID } from 'node:crypto';
import { sqlRows } from '@app/database';
import { FanOutRepository } from '../src/delivery/fan-out.repository';
import { addSubscription, statusEvent, useDeliveriesStore } from './support/store';

/**
 * A message's statuses are fanned out forward only: whatever order they reach the stream in, and
 * however many replicas fan them out at once, a subscription's deliveries of one message rank
 * upward in the order they were written.
 */
describe('deliveries: statuses fanned out forward only', () => {
  const store = useDeliveriesStore('webhooks-forward-only');
  /** The event types of a subscription's deliveries, in the order they were written (and are sent). */
  const delivered = async (sub: string) =>
    (
      await sqlRows<{ event_type: string; message: string }>(
        store.ds,
        `SELECT event_type, substr(order_key, 9) AS message FROM deliveries WHERE subscription_id = $1 ORDER BY seq`,
        [sub],
      )
    ).map((r) => `${r.message} ${r.event_type}`);

  it('does not send a status that arrives after a later one of its message, in later batches or the same', async () => {
    const user = randomUUID();
    const sub = await addSubscription(store.ds, user);
    await store.fanOut.fanOut([statusEvent(user, 'm1', 'message.sent'), statusEvent(user, 'm1', 'message.read')]);
    const late = [statusEvent(user, 'm1', 'message.delivered'), statusEvent(user, 'm1', 'message.failed')];
    expect(await store.fanOut.fanOut(late)).toEqual([
      { ready: 0, toRelease: 0 },
      { ready: 0, toRelease: 0 },
    ]);
    await store.fanOut.fanOut([
      statusEvent(user, 'm2', 'message.delivered'),
      statusEvent(user, 'm2', 'message.sent'),
      statusEvent(user, 'm2', 'message.failed'),
      statusEvent(user, 'm2', 'message.read'),
    ]);
    expect(await delivered(sub)).toEqual([
      'm1 message.sent',
      'm1 message.read',
      'm2 message.delivered',
      'm2 message.failed',
    ]);
  });

  it("sends a message's deliveries in the order they were fanned out, not their stream order", async () => {
    const user = randomUUID();
    await addSubscription(store.ds, user);
    // Another replica fanned out the later stream position first.
    const read = statusEvent(user, 'm1', 'message.read');
    const deliveredEvent = statusEvent(user, 'm1', 'message.delivered');
    await store.fanOut.fanOut([deliveredEvent]);
    await store.fanOut.fanOut([read]);
    const claim = () => store.claims.claim({ max: 10, perSubscription: 10, perTenant: 10, leaseMs: 60_000 });
    expect((await claim()).map((d) => d.event_type)).toEqual(['message.delivered']);
    expect(await claim()).toEqual([]);
  });

  it('keeps a message forward only for a tenant without subscriptions, and apart from other tenants', async () => {
    const [quiet, other] = [randomUUID(), randomUUID()];
    await store.fanOut.fanOut([statusEvent(quiet, 'm1', 'message.read')]);
    const sub = await addSubscription(store.ds, quiet);
    const otherSub = await addSubscription(store.ds, other);
    await store.fanOut.fanOut([
      statusEvent(quiet, 'm1', 'message.delivered'),
      statusEvent(other, 'm1', 'message.sent'),
    ]);
    expect(await delivered(sub)).toEqual([]);
    expect(await delivered(otherSub)).toEqual(['m1 message.sent']);
  });

  it('keeps two replicas fanning out the same messages at once forward only', async () => {
    const user = randomUUID();
    const sub = await addSubscription(store.ds, user);
    const [one, two] = [new FanOutRepository(store.ds), new FanOutRepository(store.ds)];
    const messages = Array.from({ length: 40 }, (_, i) => `m${i}`);
    for (let round = 0; round < 5; round++) {
      const ids = messages.map((m) => `${m}-${round}`);
      await store.fanOut.fanOut(ids.map((m) => statusEvent(user, m, 'message.sent')));
      // Each message's `delivered` is earlier in the stream; the replicas commit in either order.
      const earlier = ids.map((m) => statusEvent(user, m, 'message.delivered'));
      const later = ids.map((m) => statusEvent(user, m, 'message.read'));
      await Promise.all([one.fanOut(earlier), two.fanOut([...later].reverse())]);
    }
    const sent = await delivered(sub);
    const byMessage = new Map<string, string[]>();
    for (const line of sent) {
      const [message, type] = line.split(' ');
      byMessage.set(message, [...(byMessage.get(message) ?? []), type]);
    }
    expect(byMessage.size).toBe(200);
    for (const types of byMessage.values()) {
      expect([
        ['message.sent', 'message.read'],
        ['message.sent', 'message.delivered', 'message.read'],
      ]).toContainEqual(types);
    }
  });
});
