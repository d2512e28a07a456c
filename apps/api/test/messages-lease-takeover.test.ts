import { waitFor } from '@app/testing';
import { IdempotencyRepository } from '../src/idempotency/idempotency.repository';
import { SendRecord, SendTransaction } from '../src/sending/send-transaction';
import { AppEntity } from '../src/wa-apps/app.entity';
import { ApiFactory, TestUser } from '../../../test/support/factories';
import { Platform, startPlatform } from '../../../test/support/platform';
import { registerSandboxNumber } from '../../../test/support/sandbox';
import { client } from './support/http';

const START = 10;
const PRICE = 0.02; // UTILITY in the default price table
const LEASE_SECONDS = 2;

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/**
 * One Idempotency-Key is one message even when its first request outlives its lease (its process
 * starved, its renewals late) or loses the database's answer to its commit: a retry may take the
 * key over, but only one of the two requests commits a message, every answer names it, it is held
 * once and the channel gets it once.
 */
describe('Idempotency-Key: a first request that outlives its lease', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let sys: TestUser;
  let app: AppEntity;
  let call: ReturnType<typeof client>;
  let sends: SendTransaction;
  let keys: IdempotencyRepository;

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'messages-lease-takeover',
      services: ['api', 'gateway', 'queue', 'sandbox'],
      env: {
        IDEMPOTENCY_LEASE_SECONDS: String(LEASE_SECONDS),
        OUTBOX_RELAY_AFTER_MS: '300',
        SETTLEMENT_INTERVAL_MS: '200',
        RATE_LIMIT_PER_SECOND: '100000',
        RATE_LIMIT_BURST: '100000',
      },
    });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    sys = await factory.user('system', { balance: START });
    app = await factory.activeApp(sys.userId, { message_limit: 'TIER_UNLIMITED' });
    await registerSandboxNumber(platform.urls.sandbox, app);
    await factory.sendableTemplate(app.id, { name: 'lease_tpl', category: 'UTILITY', body: 'Paid {{1}}' });
    call = client(`${platform.urls.api}/api`);
    sends = platform.apps.api!.get(SendTransaction);
    keys = platform.apps.api!.get(IdempotencyRepository);
  });

  afterEach(() => jest.restoreAllMocks());

  afterAll(async () => {
    await factory?.close();
    await platform?.stop();
  });

  const sql = <T>(query: string, params: unknown[] = []) => factory.dataSource.query(query, params) as Promise<T[]>;
  const send = (key: string, phone: string) =>
    call('POST', `/v1/wa/apps/${app.id}/messages`, {
      auth: sys.auth,
      body: { phone, type: 'TEMPLATE', template: { name: 'lease_tpl', components: { body: { values: ['9.90'] } } } },
      headers: { 'idempotency-key': key },
    });
  const messagesWithKey = async (key: string) =>
    (
      await sql<{ id: string }>(`SELECT id FROM messages WHERE user_id = $1 AND idempotency_key = $2`, [
        sys.userId,
        key,
      ])
    ).map((m) => m.id);
  const holdsOf = (ids: string[]) =>
    sql<{ message_id: string }>(`SELECT message_id FROM holds WHERE message_id = ANY($1::text[])`, [ids]);
  const available = async () =>
    Number(
      (await sql<{ available: string }>(`SELECT available FROM balances WHERE user_id = $1`, [sys.userId]))[0]
        .available,
    );
  /** What the channel received for this recipient, once every message sent to it has arrived. */
  const arrivalsAt = async (phone: string) => {
    const received = async () =>
      (
        (await (await fetch(`${platform.urls.sandbox}/_sandbox/whatsapp/messages`)).json()) as {
          body: { to?: string; biz_opaque_callback_data?: string };
        }[]
      ).filter((r) => r.body.to === phone);
    const committed = await sql<{ id: string }>(`SELECT id FROM messages WHERE user_id = $1 AND recipient = $2`, [
      sys.userId,
      phone,
    ]);
    await waitFor(
      async () => {
        const got = new Set((await received()).map((r) => r.body.biz_opaque_callback_data));
        return committed.every((m) => got.has(m.id));
      },
      30_000,
      'every committed message at the channel',
      200,
    );
    return (await received()).map((r) => r.body.biz_opaque_callback_data);
  };

  /** The next send's commit waits, once it is `reached`, until `stalled` is resolved. */
  const stallNextCommit = () => {
    const stalled = deferred();
    const reached = deferred();
    const commit = sends.commit.bind(sends);
    jest.spyOn(sends, 'commit').mockImplementationOnce(async (record: SendRecord) => {
      reached.resolve();
      await stalled.promise;
      return commit(record);
    });
    return { stalled, reached };
  };

  it('a retry that took the key over while the first request stalled: one message, both answers name it, held and sent once', async () => {
    const key = 'order-lease-1';
    const phone = '79990005501';
    const before = await available();
    // The first request's process stalls (starved of CPU): its send waits before its transaction,
    // and its lease renewals do not reach the database meanwhile.
    const { stalled, reached } = stallNextCommit();
    const renew = keys.renew.bind(keys) as (...args: unknown[]) => Promise<void>;
    jest.spyOn(keys, 'renew').mockImplementation(async (...args: unknown[]) => {
      await stalled.promise;
      return renew(...args);
    });

    const first = send(key, phone);
    await reached.promise;
    await waitFor(
      async () =>
        (
          await sql<{ expired: boolean }>(
            `SELECT created_at < now() - make_interval(secs => $3) AS expired FROM idempotency_keys
             WHERE user_id = $1 AND key = $2`,
            [sys.userId, key, LEASE_SECONDS],
          )
        )[0]?.expired === true,
      30_000,
      "the first request's lease to run out",
      100,
    );
    const retry = await send(key, phone);
    expect(retry.status).toBe(201);
    stalled.resolve();
    const original = await first;

    const ids = await messagesWithKey(key);
    expect(ids).toEqual([retry.body.message.id]);
    expect(original.status).toBe(201);
    expect(original.body.message.id).toBe(retry.body.message.id);
    expect(await holdsOf(ids)).toHaveLength(1);
    expect(await available()).toBeCloseTo(before - PRICE, 6);
    expect(await arrivalsAt(phone)).toEqual(ids);
    // Every later repeat answers the same message.
    const again = await send(key, phone);
    expect(again.status).toBe(201);
    expect(again.body.message.id).toBe(retry.body.message.id);
  });

  it('a first request alive past three leases keeps its key (renewed): a retry meanwhile is told it is in use, and one message is sent', async () => {
    const key = 'order-lease-renewed';
    const phone = '79990005503';
    const { stalled, reached } = stallNextCommit();
    const first = send(key, phone);
    await reached.promise;
    const leaseOf = async () =>
      (
        await sql<{ age: number }>(
          `SELECT extract(epoch FROM now() - created_at)::float8 AS age FROM idempotency_keys
            WHERE user_id = $1 AND key = $2`,
          [sys.userId, key],
        )
      )[0]?.age;
    // Three leases' time: the renewals keep the lease younger than one lease all along.
    const ages: number[] = [];
    for (const until = Date.now() + 3 * LEASE_SECONDS * 1000; Date.now() < until;) {
      ages.push(await leaseOf());
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(Math.max(...ages)).toBeLessThan(LEASE_SECONDS);
    const retry = await send(key, phone);
    expect({ status: retry.status, type: retry.body.type }).toEqual({
      status: 409,
      type: expect.stringContaining('idempotency-key-in-use'),
    });
    stalled.resolve();
    const original = await first;
    expect(original.status).toBe(201);
    const ids = await messagesWithKey(key);
    expect(ids).toEqual([original.body.message.id]);
    expect(await arrivalsAt(phone)).toEqual(ids);
  });

  it('a send whose commit succeeded but whose answer was lost: answered with its message, a retry sends nothing new', async () => {
    const key = 'order-lease-2';
    const phone = '79990005502';
    const before = await available();
    const commit = sends.commit.bind(sends);
    jest.spyOn(sends, 'commit').mockImplementationOnce(async (record: SendRecord) => {
      await commit(record);
      throw new Error('Connection terminated unexpectedly');
    });

    const first = await send(key, phone);
    const retry = await send(key, phone);

    const ids = await messagesWithKey(key);
    expect(ids).toHaveLength(1);
    expect(first.status).toBe(201);
    expect(first.body.message.id).toBe(ids[0]);
    expect(retry.status).toBe(201);
    expect(retry.body.message.id).toBe(ids[0]);
    expect(await holdsOf(ids)).toHaveLength(1);
    expect(await available()).toBeCloseTo(before - PRICE, 6);
    // Its publish was never made by the request: the outbox relay makes it, once.
    expect(await arrivalsAt(phone)).toEqual(ids);
  });
});
