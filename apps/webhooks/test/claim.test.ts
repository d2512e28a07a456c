import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { ClaimedDelivery } from '../src/delivery/delivery-claims.repository';
import { addSubscription, streamEvents, useDeliveriesStore } from './support/store';

/**
 * Claiming against the real schema: what other dispatchers hold (unexpired leases) counts against
 * a subscription's window and its tenant's limit; a lease that ran out or a settled delivery
 * does not.
 */
describe('deliveries: claiming within windows and tenant limits', () => {
  const store = useDeliveriesStore('webhooks-claim');
  const events = (userId: string, n: number) => store.fanOut.fanOut(streamEvents(userId, n));

  const claim = (perSubscription: number, perTenant: number, leaseMs = 60_000) =>
    store.claims.claim({ max: 100, perSubscription, perTenant, leaseMs });

  const settle = (claimed: ClaimedDelivery[]) =>
    store.claims.settleSucceeded(
      claimed.map((d) => ({
        status: 'SUCCEEDED' as const,
        nextAttemptAt: null,
        record: {
          deliveryId: d.id,
          subscriptionId: d.subscription_id,
          eventId: d.event_id,
          eventType: d.event_type,
          attempt: 1,
          status: 'SUCCEEDED' as const,
          responseStatus: 200,
          latencyMs: 1,
          responseExcerpt: null,
          error: null,
          startedAt: new Date(),
        },
      })),
    );

  it("counts another dispatcher's leases against the window until they are settled", async () => {
    const user = randomUUID();
    const sub = await addSubscription(store.ds, user);
    await events(user, 10);
    const first = await claim(3, 64);
    expect(first.map((d) => d.subscription_id)).toEqual([sub, sub, sub]);
    // A second dispatcher finds the window full.
    expect(await claim(3, 64)).toEqual([]);
    await settle(first.slice(0, 2));
    const second = await claim(3, 64);
    expect(second).toHaveLength(2);
    expect(new Set([...first, ...second].map((d) => d.id)).size).toBe(5);
  });

  it("counts every subscription's leases against the tenant's limit", async () => {
    const user = randomUUID();
    const [a, b] = [await addSubscription(store.ds, user), await addSubscription(store.ds, user)];
    await events(user, 10);
    const taken = await claim(10, 4);
    expect(taken).toHaveLength(4);
    expect(await claim(10, 4)).toEqual([]);
    // Another tenant is not held back by it.
    const other = randomUUID();
    await addSubscription(store.ds, other);
    await events(other, 2);
    expect((await claim(10, 4)).map((d) => d.user_id)).toEqual([other, other]);
    await settle(taken);
    const rest = await claim(10, 4);
    expect(rest).toHaveLength(4);
    expect(new Set(rest.map((d) => d.subscription_id))).toEqual(new Set([a, b]));
  });

  it.each([
    ['leased', `locked_until = now() + interval '1 minute'`],
    ['settled', `status = 'SUCCEEDED', locked_until = NULL, finished_at = now()`],
  ])('passes over a delivery another dispatcher %s after this claim had chosen it', async (_, change) => {
    const user = randomUUID();
    await addSubscription(store.ds, user);
    await events(user, 1);
    const [{ id }] = await store.ds.query(
      `SELECT d.id FROM deliveries d JOIN subscriptions s ON s.id = d.subscription_id WHERE s.user_id = $1`,
      [user],
    );
    // The other dispatcher's claim is under way: its row lock on the delivery is taken, not yet committed.
    const other = store.ds.createQueryRunner();
    await other.connect();
    try {
      await other.startTransaction();
      await other.query('SELECT 1 FROM deliveries WHERE id = $1 FOR UPDATE', [id]);
      // This claim chooses the delivery from its snapshot (free then) and waits on the row.
      const mine = claim(3, 64);
      await waitUntilBlocked(store.ds);
      await other.query(`UPDATE deliveries SET ${change} WHERE id = $1`, [id]);
      await other.commitTransaction();
      expect(await mine).toEqual([]);
    } finally {
      await other.release();
    }
  });

  it('takes again what a crashed dispatcher held once its lease ran out', async () => {
    const user = randomUUID();
    await addSubscription(store.ds, user);
    await events(user, 2);
    const held = await claim(1, 64, 300);
    expect(held).toHaveLength(1);
    expect(await claim(1, 64, 300)).toEqual([]);
    await new Promise((r) => setTimeout(r, 400));
    const again = await claim(1, 64);
    expect(again.map((d) => d.id)).toEqual(held.map((d) => d.id));
  });
});

/** Until a backend of this database waits for a row lock (the claim, blocked on the delivery). */
async function waitUntilBlocked(ds: DataSource): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const [{ n }] = await ds.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    );
    if (n > 0) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('the claim never waited on the row');
}
