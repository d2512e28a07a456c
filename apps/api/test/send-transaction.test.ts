import { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { createDataSource, migrateSchema } from '@app/database';
import { startTestInfra, TestInfra } from '@app/testing';
import { BalancesRepository } from '../src/billing/balances.repository';
import { BillingService } from '../src/billing/billing.service';
import { ApiConfig } from '../src/config';
import { IdempotencyRepository } from '../src/idempotency/idempotency.repository';
import { apiSchema } from '../src/database/schema';
import { MessagesRepository } from '../src/messages/messages.repository';
import { OutboxRepository } from '../src/outbox';
import { SendOutcome, SendRecord, SendTransaction } from '../src/sending/send-transaction';
import { TierWindowRepository } from '../src/sending/tier-window';
import { AppEntity } from '../src/wa-apps/app.entity';
import { ApiFactory, TestUser } from '../../../test/support/factories';

const PRICE = 0.02;

/**
 * The send transaction against the database, in process: its one-statement case and what happens
 * when what it read changes before its statement runs (as another api replica or the housekeeping
 * sweep would change it).
 */
describe('send transaction', () => {
  let infra: TestInfra;
  let factory: ApiFactory;
  let ds: DataSource;

  beforeAll(async () => {
    infra = await startTestInfra({ suite: 'send_tx', nats: false });
    await migrateSchema(infra.databaseUrl, apiSchema);
    factory = await ApiFactory.connect(infra.databaseUrl);
    ds = factory.dataSource;
  });

  afterAll(async () => {
    await factory?.close();
    await infra?.stop();
  });

  const pools: DataSource[] = [];
  afterEach(async () => {
    for (const pool of pools.splice(0)) await pool.destroy();
  });

  /** A SendTransaction as one api process builds it, on a pool of its own, with its repositories (to watch or disturb). */
  const apiProcess = async () => {
    const ds = createDataSource(infra.databaseUrl, apiSchema, 4);
    await ds.initialize();
    pools.push(ds);
    const messages = new MessagesRepository(ds);
    const tiers = new TierWindowRepository(ds);
    const billing = new BillingService(new BalancesRepository(ds));
    const tx = new SendTransaction(
      messages,
      tiers,
      billing,
      new OutboxRepository(ds),
      new IdempotencyRepository(ds),
      Object.assign(new ApiConfig(), { SEND_BATCH_MAX: 256 }),
    );
    return { tx, messages, tiers, billing };
  };

  const record = (user: TestUser, app: AppEntity, recipient: string, cap = 50): SendRecord => {
    const id = uuidv7();
    return {
      message: {
        id,
        userId: user.userId,
        appId: app.id,
        accountId: null,
        channel: 'whatsapp',
        recipient,
        kind: 'TEMPLATE',
        category: 'UTILITY',
        priority: 'service',
        templateId: null,
        providerMessageId: null,
        price: PRICE,
        idempotencyKey: null,
        requestHash: null,
        failureCode: null,
        failureReason: null,
      },
      tier: { appId: app.id, cap, label: `TIER_${cap}` },
      outbox: { id, subject: 'test.outbound', payload: { id } },
    };
  };

  const one = async (sql: string, params: unknown[]) => ((await ds.query(sql, params)) as Record<string, unknown>[])[0];
  const balanceOf = (user: TestUser) =>
    one(`SELECT available::float8 AS available, held::float8 AS held FROM balances WHERE user_id = $1`, [user.userId]);
  const written = async (app: AppEntity) =>
    one(
      `SELECT (SELECT count(*)::int FROM messages WHERE app_id = $1) AS messages,
              (SELECT count(*)::int FROM holds h JOIN messages m ON m.id = h.message_id WHERE m.app_id = $1) AS holds,
              (SELECT count(*)::int FROM message_events e JOIN messages m ON m.id = e.message_id WHERE m.app_id = $1) AS events,
              (SELECT count(*)::int FROM outbox o JOIN messages m ON m.id = o.id WHERE m.app_id = $1) AS outbox,
              (SELECT coalesce(sum(queued), 0)::int FROM usage_hourly WHERE user_id = (SELECT user_id FROM apps WHERE id = $1)) AS queued,
              (SELECT recipients FROM tier_usage WHERE app_id = $1) AS counted,
              (SELECT count(*)::int FROM tier_recipients WHERE app_id = $1) AS rows`,
      [app.id],
    );
  const inWindow = (app: AppEntity, recipient: string, ago = '1 hour') =>
    ds.query(
      `INSERT INTO tier_recipients (app_id, recipient, first_sent_at, last_sent_at) VALUES ($1, $2, now() - $3::interval, now() - $3::interval)`,
      [app.id, recipient, ago],
    );
  const accepted = (outcomes: SendOutcome[]) => outcomes.filter((o) => o.accepted).length;
  /** A user with `balance` and a TIER_50 app whose window (and counter) holds `window`, sent an hour ago. */
  const tenant = async (balance: number, window: string[] = []) => {
    const user = await factory.user('system', { balance });
    const app = await factory.activeApp(user.userId, { message_limit: 'TIER_50' });
    for (const r of window) await inWindow(app, r);
    if (window.length) {
      await ds.query(`INSERT INTO tier_usage (app_id, recipients) VALUES ($1, $2)`, [app.id, window.length]);
    }
    return { user, app };
  };

  it('a send whose Idempotency-Key another request took over commits nothing; a held key records its message', async () => {
    const { user, app } = await tenant(1, ['4476000001']);
    const { tx, messages } = await apiProcess();
    const keys = new IdempotencyRepository(ds);
    const transactions = jest.spyOn(messages, 'transaction');
    const [stale, taker, other] = [uuidv7(), uuidv7(), uuidv7()];
    await keys.claim(user.userId, 'k-lost', 'h'.repeat(64), 24, stale);
    // Its lease ran out: a retry took the key over (as `takeOverExpired` does once it expired).
    await ds.query(`UPDATE idempotency_keys SET holder = $2 WHERE user_id = $1 AND key = 'k-lost'`, [
      user.userId,
      taker,
    ]);
    await keys.claim(user.userId, 'k-held', 'h'.repeat(64), 24, other);
    const keyed = (key: string, holder: string) => {
      const r = record(user, app, '4476000001');
      return { ...r, message: { ...r.message, idempotencyKey: key }, lease: { key, holder } };
    };
    const lost = keyed('k-lost', stale);
    const held = keyed('k-held', other);

    const outcomes = await Promise.all([tx.commit(lost), tx.commit(held)]);

    // The one statement aborted for the lost key; the locked path refused that send alone.
    expect(transactions).toHaveBeenCalledTimes(1);
    expect(outcomes[0].accepted).toBe(false);
    expect(!outcomes[0].accepted && [outcomes[0].problem.status, outcomes[0].problem.slug]).toEqual([
      409,
      'idempotency-key-in-use',
    ]);
    expect(outcomes[1]).toEqual({ accepted: true, currency: 'USD' });
    expect(await written(app)).toMatchObject({ messages: 1, holds: 1, events: 1, outbox: 1, queued: 1 });
    expect(await balanceOf(user)).toEqual({ available: 0.98, held: 0.02 });
    const onKeys = await ds.query(
      `SELECT key, holder, message_id FROM idempotency_keys WHERE user_id = $1 ORDER BY key`,
      [user.userId],
    );
    expect(onKeys).toEqual([
      { key: 'k-held', holder: other, message_id: held.message.id },
      { key: 'k-lost', holder: taker, message_id: null },
    ]);
    // A held key alone is the one statement, which records its message on the key.
    await keys.claim(user.userId, 'k-one', 'h'.repeat(64), 24, stale);
    const one = keyed('k-one', stale);
    expect(await tx.commit(one)).toEqual({ accepted: true, currency: 'USD' });
    expect(transactions).toHaveBeenCalledTimes(1);
    expect((await keys.find(user.userId, 'k-one'))?.messageId).toBe(one.message.id);
    // Its request's failure no longer gives the key up: the send committed.
    expect(await keys.forget(user.userId, 'k-one', stale)).toBe(false);
  });

  it('a group the balance covers, to recipients in the window, is one statement: every row written, no transaction', async () => {
    const { user, app } = await tenant(1, ['4470000001', '4470000002']);
    const { tx, messages } = await apiProcess();
    const transactions = jest.spyOn(messages, 'transaction');

    const outcomes = await Promise.all(
      ['4470000001', '4470000002', '4470000001'].map((r) => tx.commit(record(user, app, r))),
    );

    expect(outcomes).toEqual([1, 2, 3].map(() => ({ accepted: true, currency: 'USD' })));
    expect(transactions).not.toHaveBeenCalled();
    expect(await written(app)).toEqual({ messages: 3, holds: 3, events: 3, outbox: 3, queued: 3, counted: 2, rows: 2 });
    expect(await balanceOf(user)).toEqual({ available: 0.94, held: 0.06 });
    // Sending again keeps a recipient in the window for another 24 hours from now.
    const [{ fresh }] = await ds.query(
      `SELECT bool_and(last_sent_at > now() - interval '1 minute') AS fresh FROM tier_recipients WHERE app_id = $1`,
      [app.id],
    );
    expect(fresh).toBe(true);
  });

  it('new recipients with room under the cap are one statement too, and counted once each', async () => {
    const { user, app } = await tenant(1, ['4474000001']);
    const { tx, messages } = await apiProcess();
    const transactions = jest.spyOn(messages, 'transaction');

    const to = ['4474000001', '4474000002', '4474000003', '4474000002'];
    const outcomes = await Promise.all(to.map((r) => tx.commit(record(user, app, r, 3))));

    expect(accepted(outcomes)).toBe(4);
    expect(transactions).not.toHaveBeenCalled();
    expect(await written(app)).toEqual({ messages: 4, holds: 4, events: 4, outbox: 4, queued: 4, counted: 3, rows: 3 });
    // The cap reached: a fourth recipient is refused (by the locked path), a repeat still passes.
    const more = await Promise.all(['4474000004', '4474000003'].map((r) => tx.commit(record(user, app, r, 3))));
    expect(more.map((o) => o.accepted)).toEqual([false, true]);
    expect(await written(app)).toMatchObject({ messages: 5, counted: 3, rows: 3 });
  });

  it('two processes sending to new recipients at the cap: exactly the cap admitted, counted exactly', async () => {
    const { user, app } = await tenant(10);
    const [a, b] = [await apiProcess(), await apiProcess()];

    const outcomes = await Promise.all(
      Array.from({ length: 80 }, (_, i) =>
        (i % 2 ? a : b).tx.commit(record(user, app, `44750000${String(i).padStart(2, '0')}`)),
      ),
    );

    expect(accepted(outcomes)).toBe(50);
    expect(await written(app)).toMatchObject({ messages: 50, holds: 50, outbox: 50, counted: 50, rows: 50 });
    expect(await balanceOf(user)).toEqual({ available: 9, held: 1 });
  });

  it('a group the balance does not cover: the statement writes nothing, the locked path refuses exactly', async () => {
    const { user, app } = await tenant(0.05, ['4471000001', '4471000002', '4471000003']);
    const { tx, messages } = await apiProcess();
    const transactions = jest.spyOn(messages, 'transaction');

    const outcomes = await Promise.all(
      ['4471000001', '4471000002', '4471000003'].map((r) => tx.commit(record(user, app, r))),
    );

    expect(transactions).toHaveBeenCalledTimes(1);
    expect(accepted(outcomes)).toBe(2);
    const refused = outcomes.find((o) => !o.accepted);
    expect(refused && !refused.accepted && [refused.problem.status, refused.problem.slug]).toEqual([
      422,
      'insufficient-balance',
    ]);
    expect(await written(app)).toEqual({ messages: 2, holds: 2, events: 2, outbox: 2, queued: 2, counted: 3, rows: 3 });
    expect(await balanceOf(user)).toEqual({ available: 0.01, held: 0.04 });
  });

  it('a new recipient another send records while the statement runs: it aborts, and the recipient is counted once', async () => {
    const { user, app } = await tenant(1, ['4472000001']);
    const { tx, messages } = await apiProcess();
    const transactions = jest.spyOn(messages, 'transaction');
    // Another send (another replica's, say) has counted and recorded the same new recipient and
    // not committed yet: the statement sees it as new, then waits on the app's counter.
    const other = ds.createQueryRunner();
    await other.connect();
    await other.startTransaction();
    await other.query(`UPDATE tier_usage SET recipients = recipients + 1 WHERE app_id = $1`, [app.id]);
    await other.query(
      `INSERT INTO tier_recipients (app_id, recipient, first_sent_at, last_sent_at) VALUES ($1, '4472000002', now(), now())`,
      [app.id],
    );

    const sending = tx.commit(record(user, app, '4472000002'));
    await new Promise((r) => setTimeout(r, 300));
    await other.commitTransaction();
    await other.release();

    expect(await sending).toEqual({ accepted: true, currency: 'USD' });
    // The statement had counted it again, then found it recorded: it aborted, and the locked path
    // admitted the recipient as the repeat it now is.
    expect(transactions).toHaveBeenCalledTimes(1);
    expect(await written(app)).toEqual({ messages: 1, holds: 1, events: 1, outbox: 1, queued: 1, counted: 2, rows: 2 });
    expect(await balanceOf(user)).toEqual({ available: 0.98, held: 0.02 });
  });

  it('writes its new rows before it takes the balance row: a write that waits keeps no one from the balance', async () => {
    const { user, app } = await tenant(1, ['4476000001']);
    const { tx } = await apiProcess();
    const send = record(user, app, '4476000001');
    // Another transaction holds an outbox row under the send's id, uncommitted: the statement's
    // insert of its outbox entry waits for it.
    const other = ds.createQueryRunner();
    await other.connect();
    await other.startTransaction();
    await other.query(`INSERT INTO outbox (id, subject, payload) VALUES ($1, 'other', '{}')`, [send.outbox.id]);

    const sending = tx.commit(send);
    const waiting = () =>
      one(
        `SELECT count(*)::int AS n FROM pg_stat_activity
         WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'WITH tier_seen AS%'`,
        [],
      );
    for (let i = 0; i < 100 && (await waiting()).n === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await waiting()).toEqual({ n: 1 });
    // Meanwhile the user's balance row is free: another session takes it at once.
    await ds.transaction((em) =>
      em.query(`SELECT 1 FROM balances WHERE user_id = $1 FOR UPDATE NOWAIT`, [user.userId]),
    );
    await other.rollbackTransaction();
    await other.release();

    expect(await sending).toEqual({ accepted: true, currency: 'USD' });
    expect(await written(app)).toMatchObject({ messages: 1, holds: 1, events: 1, outbox: 1, queued: 1 });
    expect(await balanceOf(user)).toEqual({ available: 0.98, held: 0.02 });
  });

  it('two processes sending for one user at once: holds never exceed the balance, and it ends exact', async () => {
    const recipients = Array.from({ length: 10 }, (_, i) => `44730000${String(i).padStart(2, '0')}`);
    const { user, app } = await tenant(0.5, recipients);
    const [a, b] = [await apiProcess(), await apiProcess()];

    const outcomes = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).tx.commit(record(user, app, recipients[i % 10]))),
    );

    // 0.50 covers 25 sends at 0.02.
    expect(accepted(outcomes)).toBe(25);
    expect(await written(app)).toMatchObject({ messages: 25, holds: 25, outbox: 25, counted: 10, rows: 10 });
    expect(await balanceOf(user)).toEqual({ available: 0.0, held: 0.5 });
  });
});
