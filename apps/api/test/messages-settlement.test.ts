import { EventEnvelope, MessageStatusData, OutboundMessage, Topology } from '@app/contracts';
import { DeliveryStateStore, NatsClients } from '@app/messaging';
import { pgWire } from '@app/testing';
import { metricsRegistry } from '@app/server';
import { AppEntity } from '../src/wa-apps/app.entity';
import { ReceiptReconciler } from '../src/statuses/receipt-reconciler';
import { BalancesRepository } from '../src/billing/balances.repository';
import { ApiFactory, TestUser } from '../../../test/support/factories';
import { Platform, startPlatform } from '../../../test/support/platform';
import { commitTemplateSend } from '../../../test/support/send-records';
import { client } from './support/http';

interface PlanNode {
  'Relation Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

/** Every accepted message settles: a send whose publish never happened, and one that never gets a receipt. */
describe('settlement: outbox relay and receipt reconciler', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let nats: NatsClients;
  let topology: Topology;
  let call: ReturnType<typeof client>;
  let user: TestUser;
  let app: AppEntity;

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'messages-settlement',
      services: ['api'],
      // The passes are driven by the test; the relay takes any row left behind at once.
      env: { SETTLEMENT_INTERVAL_MS: '0', OUTBOX_RELAY_AFTER_MS: '0', RECEIPT_TIMEOUT_MINUTES: '60' },
    });
    topology = platform.infra.topology;
    nats = await NatsClients.connect({ url: platform.infra.natsUrl, name: 'settlement-test' });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    call = client(`${platform.urls.api}/api`);
    user = await factory.user('system', { balance: 10 });
    app = await factory.activeApp(user.userId, { message_limit: 'TIER_UNLIMITED' });
  });

  afterAll(async () => {
    await nats?.drain();
    await factory?.close();
    await platform?.stop();
  });

  const sql = (query: string, params: unknown[] = []) => factory.dataSource.query(query, params);
  const balance = async () => (await call('GET', `/v1/users/${user.userId}/balances`, { auth: user.auth })).body;
  const settle = () => platform.apps.api!.get(ReceiptReconciler).settle();

  /** A send committed (message, hold, outbox row) by the api's own send transaction, its publish skipped as a crash would. */
  const commitWithoutPublish = (): Promise<OutboundMessage> =>
    commitTemplateSend(platform.apps.api!, topology, {
      userId: user.userId,
      app,
      recipient: '79990002233',
      category: 'UTILITY',
      price: 0.02,
      template: 'crash_tpl',
    });

  it('a send committed but never published is published by the relay with its id, and its content leaves Postgres', async () => {
    const before = await balance();
    const outbound = await commitWithoutPublish();
    expect(await sql(`SELECT id FROM outbox`)).toEqual([{ id: outbound.id }]);
    expect(await balance()).toMatchObject({ balance: before.balance - 0.02 });

    expect(await settle()).toMatchObject({ relayed: 1 });
    const jsm = await nats.jsm();
    const stored = await jsm.streams.getMessage(topology.outboundStream('service'), {
      last_by_subj: topology.outboundSubject('service', 'whatsapp'),
    });
    expect(stored?.header.get('Nats-Msg-Id')).toBe(outbound.id);
    expect(stored?.json<OutboundMessage>()).toMatchObject({ id: outbound.id, recipient: outbound.recipient });
    expect(await sql(`SELECT id FROM outbox`)).toEqual([]);
    // A second pass (or a second replica) finds nothing: the message is on the stream once.
    expect(await settle()).toMatchObject({ relayed: 0 });
    const info = await jsm.streams.info(topology.outboundStream('service'));
    expect(info.state.messages).toBe(1);
  });

  it('a message with no final status past the timeout fails as no_receipt: hold released once, message.failed published', async () => {
    const start = await balance();
    const outbound = await commitWithoutPublish();
    await settle(); // published, as any accepted send
    await sql(`UPDATE messages SET status = 'SENT' WHERE id = $1`, [outbound.id]);
    // Accepted 61 minutes ago: past RECEIPT_TIMEOUT_MINUTES.
    await sql(`UPDATE messages SET created_at = now() - interval '61 minutes' WHERE id = $1`, [outbound.id]);
    // A younger message is left alone.
    const young = await commitWithoutPublish();

    expect(await settle()).toMatchObject({ expired: 1 });
    const [m] = await sql(
      `SELECT m.status, m.failure_code, h.status AS hold FROM messages m JOIN holds h ON h.message_id = m.id WHERE m.id = $1`,
      [outbound.id],
    );
    expect(m).toEqual({ status: 'FAILED', failure_code: 'no_receipt', hold: 'RELEASED' });
    const [y] = await sql(`SELECT status FROM messages WHERE id = $1`, [young.id]);
    expect(y.status).toBe('QUEUED');
    // Only the young message's price is still held.
    expect(await balance()).toMatchObject({ balance: start.balance - 0.02 });
    expect(await settle()).toMatchObject({ expired: 0 });

    const jsm = await nats.jsm();
    const event = await jsm.streams.getMessage(topology.stream('events'), {
      last_by_subj: topology.eventSubject('message.failed'),
    });
    const envelope = event!.json<EventEnvelope<MessageStatusData>>();
    expect(envelope).toMatchObject({
      type: 'message.failed',
      app_id: app.id,
      data: { message_id: outbound.id, status: 'FAILED', error: { code: 'no_receipt' } },
    });
    expect(await sql(`SELECT id FROM outbox`)).toEqual([]);
    const [{ n }] = await sql(`SELECT count(*)::int AS n FROM transactions WHERE message_id = $1`, [outbound.id]);
    expect(n).toBe(0);
  });

  it('a queued message past the timeout is withdrawn from the queue first; one whose channel call began is left to its events', async () => {
    const states = await DeliveryStateStore.open(nats.js, topology);
    const waiting = await commitWithoutPublish();
    const inHand = await commitWithoutPublish();
    await settle(); // both published: the queue may hold them
    // The queue's channel call for one of them has begun.
    await states.claim(inHand.id, 0, { status: 'sending', since: Date.now() });
    await sql(`UPDATE messages SET created_at = now() - interval '61 minutes' WHERE id = ANY($1::text[])`, [
      [waiting.id, inHand.id],
    ]);

    expect(await settle()).toMatchObject({ expired: 1 });
    const rows = await sql(
      `SELECT m.id, m.status, m.failure_code, h.status AS hold FROM messages m JOIN holds h ON h.message_id = m.id
        WHERE m.id = ANY($1::text[])`,
      [[waiting.id, inHand.id]],
    );
    const byId = new Map(rows.map((r: { id: string }) => [r.id, r]));
    expect(byId.get(waiting.id)).toMatchObject({ status: 'FAILED', failure_code: 'no_receipt', hold: 'RELEASED' });
    // The queue reads this before it calls the channel: the failed message is never sent.
    expect((await states.read(waiting.id)).state).toEqual({ status: 'withdrawn', code: 'no_receipt' });
    // The channel may have it: neither failed nor released while that is unknown.
    expect(byId.get(inHand.id)).toMatchObject({ status: 'QUEUED', failure_code: null, hold: 'HELD' });
    expect((await states.read(inHand.id)).state).toMatchObject({ status: 'sending' });
  });

  it('the holds gauges count what is still held, and let go of a hold once it is settled', async () => {
    const gauge = async (name: string) => {
      const metric = await metricsRegistry.getSingleMetric(name)!.get();
      return metric.values.find((v) => v.labels.currency === 'USD')?.value ?? 0;
    };
    const [n0, amount0] = [await gauge('billing_holds_outstanding'), await gauge('billing_holds_outstanding_amount')];
    const outbound = await commitWithoutPublish();
    expect(await gauge('billing_holds_outstanding')).toBe(n0 + 1);
    expect(await gauge('billing_holds_outstanding_amount')).toBeCloseTo(amount0 + 0.02, 6);

    // Past the receipt timeout: the reconciler fails it and releases its hold.
    await settle();
    await sql(`UPDATE messages SET created_at = now() - interval '61 minutes' WHERE id = $1`, [outbound.id]);
    expect(await settle()).toMatchObject({ expired: 1 });
    expect(await gauge('billing_holds_outstanding')).toBe(n0);
    expect(await gauge('billing_holds_outstanding_amount')).toBeCloseTo(amount0, 6);
  });

  it('a settlement reads its own holds, even while the statistics say none is open and many are', async () => {
    // Statistics taken at a quiet moment (every hold settled), then a busy one: 300 holds open.
    const past = await factory.user('system', { balance: 0 });
    const insertHolds = (userId: string, n: number, status: string) =>
      sql(
        `WITH m AS (
           INSERT INTO messages (id, user_id, channel, recipient, kind, category, priority, status, price, currency)
           SELECT gen_random_uuid()::text, $1, 'whatsapp', '7999' || g, 'TEMPLATE', 'UTILITY', 'service', 'SENT', 0.02, 'USD'
             FROM generate_series(1, $2::int) g RETURNING id)
         INSERT INTO holds (message_id, user_id, amount, currency, status, settled_at)
         SELECT id, $1, 0.02, 'USD', $3, CASE WHEN $3 = 'HELD' THEN NULL ELSE now() END FROM m`,
        [userId, n, status],
      );
    await insertHolds(past.userId, 2000, 'CAPTURED');
    await sql(`ANALYZE holds`);
    await insertHolds(past.userId, 300, 'HELD');
    const outbound = await commitWithoutPublish();

    // The statement as the api sends it, and what PostgreSQL reads of holds to answer it.
    const balances = platform.apps.api!.get(BalancesRepository);
    let held: { messageId: string }[] = [];
    const wire = await pgWire(async () => {
      held = await balances.heldForCapture(factory.dataSource.manager, [outbound.id]);
    });
    expect(held.map((h) => h.messageId)).toEqual([outbound.id]);
    const [text] = wire.texts.filter((t) => /FROM holds/.test(t));
    const [{ 'QUERY PLAN': plan }] = (await sql(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, [[outbound.id]])) as {
      'QUERY PLAN': { Plan: PlanNode }[];
    }[];
    const holdsRead = (node: PlanNode): number =>
      (node['Relation Name'] === 'holds'
        ? node['Actual Rows'] * node['Actual Loops'] + (node['Rows Removed by Filter'] ?? 0)
        : 0) + (node.Plans ?? []).reduce((n, p) => n + holdsRead(p), 0);
    expect(holdsRead(plan[0].Plan)).toBe(1);
  });
});
