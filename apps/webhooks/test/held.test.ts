import { randomUUID } from 'node:crypto';
import { sqlRows } from '@app/database';
import { addSubscription, streamEvents, useDeliveriesStore } from './support/store';

/**
 * Events for a parked endpoint are held outside the line of deliveries, and reach it (in stream
 * order, with the ids the deliveries list showed) once the endpoint answers again; or fail with a
 * reason when the subscription is disabled or the events outlive the retry schedule.
 */
describe('deliveries: held behind a parked endpoint', () => {
  const store = useDeliveriesStore('webhooks-held');
  const stored = (sub: string) =>
    sqlRows<{ id: string; event_id: string; status: string; last_error: string | null; seq: string }>(
      store.ds,
      `SELECT id, event_id, status, last_error, seq FROM deliveries WHERE subscription_id = $1 ORDER BY stream_seq`,
      [sub],
    );
  const heldCount = async (sub: string) =>
    Number(
      (
        await sqlRows<{ n: string }>(store.ds, 'SELECT count(*) AS n FROM held_deliveries WHERE subscription_id = $1', [
          sub,
        ])
      )[0].n,
    );
  const unpark = (sub: string) =>
    sqlRows(store.ds, 'UPDATE subscriptions SET parked_until = NULL WHERE id = $1', [sub]);
  const later = new Date(Date.now() + 3_600_000);

  it('holds events for a parked endpoint, lists them as pending, and releases them in order with the same ids', async () => {
    const user = randomUUID();
    const healthy = await addSubscription(store.ds, user);
    const parked = await addSubscription(store.ds, user, later);
    const batch = streamEvents(user, 5, 'message:m1');
    // Only the healthy subscription's deliveries are ready to send.
    expect(await store.fanOut.fanOut(batch)).toEqual(batch.map(() => ({ ready: 1, toRelease: 0 })));
    expect(await stored(healthy)).toHaveLength(5);
    expect(await stored(parked)).toEqual([]);
    expect(await heldCount(parked)).toBe(5);

    const listed = await store.history.listDeliveries(parked, 50);
    expect(listed.map((d) => d.eventId)).toEqual(batch.map((e) => e.eventId).reverse());
    expect(listed.every((d) => d.status === 'PENDING' && d.attempts === 0)).toBe(true);
    expect(listed[0].nextAttemptAt).toEqual(later);
    expect(await store.history.listDeliveries(parked, 50, 'FAILED')).toEqual([]);
    expect(await store.history.findForSubscription(parked, listed[0].id)).toMatchObject({
      held: true,
      delivery: { id: listed[0].id, status: 'PENDING' },
    });

    // Still parked: nothing moves (its probe is not due).
    expect(await store.held.release(1000)).toBe(0);
    await unpark(parked);
    // Events that come after the endpoint answered again but before the held ones moved wait
    // behind them, so one message's events never overtake each other.
    const after = streamEvents(user, 2, 'message:m1');
    expect(await store.fanOut.fanOut(after)).toEqual(after.map(() => ({ ready: 1, toRelease: 1 })));
    expect(await heldCount(parked)).toBe(7);
    expect(await store.held.release(1000)).toBe(7);
    expect(await store.held.release(1000)).toBe(0);
    const moved = await stored(parked);
    expect(moved.map((d) => d.event_id)).toEqual([...batch, ...after].map((e) => e.eventId));
    expect(moved.every((d) => d.status === 'PENDING')).toBe(true);
    expect(new Set(moved.map((d) => d.id))).toEqual(
      new Set([...listed.map((d) => d.id), ...moved.slice(5).map((d) => d.id)]),
    );

    // Nothing held any more: new events go straight in line, and a redelivered event adds nothing.
    expect(await store.fanOut.fanOut(streamEvents(user, 1))).toEqual([{ ready: 2, toRelease: 0 }]);
    expect(await store.fanOut.fanOut(batch)).toEqual(batch.map(() => ({ ready: 0, toRelease: 0 })));
    expect(await stored(parked)).toHaveLength(8);
    expect(await heldCount(parked)).toBe(0);
  });

  it('moves one held event in line when a parked endpoint is due for a probe and has no untried event', async () => {
    const user = randomUUID();
    const sub = await addSubscription(store.ds, user, later);
    const batch = streamEvents(user, 3);
    await store.fanOut.fanOut(batch);
    expect(await store.held.release(1000)).toBe(0);
    await sqlRows(store.ds, `UPDATE subscriptions SET parked_until = now() - interval '1 second' WHERE id = $1`, [sub]);
    expect(await store.held.release(1000)).toBe(1);
    // The moved one is the probe's candidate: nothing more moves until it has been tried.
    expect(await store.held.release(1000)).toBe(0);
    expect((await stored(sub)).map((d) => d.event_id)).toEqual([batch[0].eventId]);
    const [probe] = await store.claims.claim({ max: 10, perSubscription: 32, perTenant: 64, leaseMs: 60_000 });
    expect(probe).toMatchObject({ event_id: batch[0].eventId, probing: true });
  });

  it('fails held events with the reason when the subscription is disabled or they outlive the schedule', async () => {
    const user = randomUUID();
    const disabled = await addSubscription(store.ds, user, later);
    const expiring = await addSubscription(store.ds, user, later);
    await store.fanOut.fanOut(streamEvents(user, 3));
    await store.ds.transaction((em) => store.housekeeping.failPending(em, disabled, 'subscription disabled: gone'));
    expect((await stored(disabled)).map((d) => [d.status, d.last_error])).toEqual([
      ['FAILED', 'subscription disabled: gone'],
      ['FAILED', 'subscription disabled: gone'],
      ['FAILED', 'subscription disabled: gone'],
    ]);
    expect(await heldCount(disabled)).toBe(0);

    // Two events held for longer than twice the span fail; the newest one keeps waiting.
    await sqlRows(
      store.ds,
      `UPDATE held_deliveries SET created_at = now() - interval '3 hours'
        WHERE subscription_id = $1 AND stream_seq < (SELECT max(stream_seq) FROM held_deliveries WHERE subscription_id = $1)`,
      [expiring],
    );
    expect(await store.housekeeping.expireParked(3_600_000, 'kept failing')).toBe(2);
    expect((await stored(expiring)).map((d) => [d.status, d.last_error])).toEqual([
      ['FAILED', 'kept failing'],
      ['FAILED', 'kept failing'],
    ]);
    expect(await heldCount(expiring)).toBe(1);

    // One that was held just as the subscription was disabled ends with the disabling reason.
    await sqlRows(
      store.ds,
      `UPDATE subscriptions SET status = 'DISABLED', disabled_reason = 'by the user' WHERE id = $1`,
      [expiring],
    );
    expect(await store.housekeeping.failStranded()).toBe(1);
    expect((await stored(expiring)).map((d) => d.last_error)).toContain('subscription disabled: by the user');
    expect(await heldCount(expiring)).toBe(0);
  });
});
