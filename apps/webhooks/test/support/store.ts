import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { createDataSource, migrateSchema, sqlRows } from '@app/database';
import { startTestInfra, TestInfra } from '@app/testing';
import { webhooksSchema } from '../../src/database/schema';
import { DeliveryClaimsRepository } from '../../src/delivery/delivery-claims.repository';
import { DeliveryHistoryRepository } from '../../src/delivery/delivery-history.repository';
import { DeliveryHousekeepingRepository } from '../../src/delivery/delivery-housekeeping.repository';
import { FanOutEvent, FanOutRepository } from '../../src/delivery/fan-out.repository';
import { HeldDeliveriesRepository } from '../../src/delivery/held-deliveries.repository';

/** What a suite of the deliveries store works with; filled in by `beforeAll`. */
export interface StoreSuite {
  ds: DataSource;
  fanOut: FanOutRepository;
  claims: DeliveryClaimsRepository;
  held: HeldDeliveriesRepository;
  housekeeping: DeliveryHousekeepingRepository;
  history: DeliveryHistoryRepository;
}

/**
 * The webhooks schema in the suite's own database, with the delivery repositories over it. Every case starts
 * from empty tables (the claim looks at every tenant).
 */
export function useDeliveriesStore(suite: string): StoreSuite {
  const store = {} as StoreSuite;
  let infra: TestInfra | undefined;
  beforeAll(async () => {
    infra = await startTestInfra({ suite, nats: false });
    await migrateSchema(infra.databaseUrl, webhooksSchema);
    store.ds = createDataSource(infra.databaseUrl, webhooksSchema, 4);
    await store.ds.initialize();
    store.fanOut = new FanOutRepository(store.ds);
    store.claims = new DeliveryClaimsRepository(store.ds);
    store.held = new HeldDeliveriesRepository(store.ds);
    store.housekeeping = new DeliveryHousekeepingRepository(store.ds, store.held);
    store.history = new DeliveryHistoryRepository(store.ds, store.held);
  });
  beforeEach(() => sqlRows(store.ds, 'TRUNCATE subscriptions CASCADE'));
  afterAll(async () => {
    if (store.ds?.isInitialized) await store.ds.destroy();
    await infra?.stop();
  });
  return store;
}

/** An active subscription to every event, its window open, parked until `parkedUntil` when given. */
export async function addSubscription(
  ds: DataSource,
  userId: string,
  parkedUntil: Date | null = null,
): Promise<string> {
  const id = randomUUID();
  await sqlRows(
    ds,
    `INSERT INTO subscriptions (id, user_id, url, events, secret, window_open, parked_until)
     VALUES ($1, $2, 'https://example.com/hook', ARRAY['*'], 'secret', true, $3)`,
    [id, userId, parkedUntil],
  );
  return id;
}

let streamSeq = 0;

/** `n` events of the tenant, next in the stream (one message's when `orderKey` is given). */
export function streamEvents(userId: string, n: number, orderKey: string | null = null): FanOutEvent[] {
  return Array.from({ length: n }, () => ({
    eventId: `evt_${randomUUID().replace(/-/g, '')}`,
    type: 'app.updated' as const,
    userId,
    appId: 1,
    createdAt: new Date(),
    streamSeq: ++streamSeq,
    payload: `{"n":${streamSeq}}`,
    orderKey,
    status: null,
  }));
}

const RANKS = { 'message.sent': 1, 'message.delivered': 2, 'message.read': 3, 'message.failed': 3 } as const;

/** A status event of one message, next in the stream. */
export function statusEvent(userId: string, messageId: string, type: keyof typeof RANKS): FanOutEvent {
  return {
    eventId: `evt_${randomUUID().replace(/-/g, '')}`,
    type,
    userId,
    appId: 1,
    createdAt: new Date(),
    streamSeq: ++streamSeq,
    payload: JSON.stringify({ type, data: { message_id: messageId } }),
    orderKey: `message:${messageId}`,
    status: { messageId, rank: RANKS[type] },
  };
}
