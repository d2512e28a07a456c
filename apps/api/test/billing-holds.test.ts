import { EventEnvelope, EventType, newEventId, OutboundMessage, Topology, unixSeconds } from '@app/contracts';
import { NatsClients, publishDurable, pullNoWait } from '@app/messaging';
import { waitFor, eventsHandledBy } from '@app/testing';
import { AppEntity } from '../src/wa-apps/app.entity';
import { ApiFactory, TestUser } from '../../../test/support/factories';
import { Platform, startPlatform } from '../../../test/support/platform';
import { client } from './support/http';

const PRICE = 0.02; // UTILITY in the default price table

/** Holds on accept, charges on delivery, releases on failure: driven by the channel's events. */
describe('balance holds and charges', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let nats: NatsClients;
  let topology: Topology;
  let call: ReturnType<typeof client>;

  /** A tenant with an app, an approved UTILITY template and `balance` to spend. */
  const tenant = async (balance: number) => {
    const user = await factory.user('system', { balance });
    const app = await factory.activeApp(user.userId, { message_limit: 'TIER_UNLIMITED' });
    await factory.sendableTemplate(app.id, { name: 'shipping_update', category: 'UTILITY', body: 'Shipped {{1}}' });
    return { user, app };
  };
  const sendTemplate = (user: TestUser, app: AppEntity, phone = '79990001122') =>
    call('POST', `/v1/wa/apps/${app.id}/messages`, {
      auth: user.auth,
      body: {
        phone,
        type: 'TEMPLATE',
        template: { name: 'shipping_update', components: { body: { values: ['today'] } } },
      },
    });
  const balance = async (user: TestUser) =>
    (await call('GET', `/v1/users/${user.userId}/balances`, { auth: user.auth })).body.balance as number;
  const row = async (messageId: string) =>
    (
      await factory.dataSource.query(
        `SELECT m.status, h.status AS hold, (SELECT count(*)::int FROM transactions t WHERE t.message_id = m.id) AS charges
         FROM messages m JOIN holds h ON h.message_id = m.id WHERE m.id = $1`,
        [messageId],
      )
    )[0] as { status: string; hold: string; charges: number };
  const emit = async (type: EventType, data: Record<string, unknown>) => {
    const event: EventEnvelope = {
      id: newEventId(),
      type,
      created_at: unixSeconds(),
      channel: 'whatsapp',
      app_id: null,
      data: { recipient: '79990001122', timestamp: unixSeconds(), ...data },
    };
    await publishDurable(nats.js, topology.eventSubject(type), event, event.id);
  };

  /** The api has handled (and acked) every event published so far. */
  const eventsHandled = () => eventsHandledBy(nats, topology, 'api');

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'billing-holds',
      services: ['api'],
      env: { RATE_LIMIT_PER_SECOND: '100000', RATE_LIMIT_BURST: '100000' },
    });
    topology = platform.infra.topology;
    nats = await NatsClients.connect({ url: platform.infra.natsUrl, name: 'billing-holds-test' });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    call = client(`${platform.urls.api}/api`);
  });

  afterAll(async () => {
    await nats?.drain();
    await factory?.close();
    await platform?.stop();
  });

  it('200 concurrent sends against a balance for exactly 50: 50 accepted, 150 refused, never below zero', async () => {
    const { user, app } = await tenant(50 * PRICE);
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => sendTemplate(user, app, `4477000${String(i).padStart(5, '0')}`)),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(50);
    expect(statuses.filter((s) => s === 422)).toHaveLength(150);
    for (const r of results.filter((x) => x.status === 422)) expect(r.body.type).toBe('/problems/insufficient-balance');
    expect(await balance(user)).toBe(0);
    const [b] = await factory.dataSource.query(`SELECT available, held FROM balances WHERE user_id = $1`, [
      user.userId,
    ]);
    expect(b).toEqual({ available: '0.0000', held: '1.0000' });
    const [{ n }] = await factory.dataSource.query(`SELECT count(*)::int AS n FROM messages WHERE user_id = $1`, [
      user.userId,
    ]);
    expect(n).toBe(50);
    const queued = await pullNoWait(
      nats.nc,
      topology.outboundStream('service'),
      topology.outboundConsumer('service', 'whatsapp'),
      500,
    );
    for (const m of queued) await m.ack();
    const ids = new Set(queued.map((m) => m.json<OutboundMessage>().id));
    expect(ids).toEqual(new Set(results.filter((r) => r.status === 201).map((r) => r.body.message.id)));
  });

  it('a failed delivery releases the hold: no transaction, balance restored, status FAILED', async () => {
    const { user, app } = await tenant(1);
    const sent = await sendTemplate(user, app);
    const id = sent.body.message.id as string;
    expect(await balance(user)).toBeCloseTo(1 - PRICE, 4);
    await emit('message.failed', {
      message_id: id,
      status: 'FAILED',
      error: { code: '131026', title: 'Message undeliverable' },
    });
    // Events of one batch are handled concurrently: wait for the whole outcome, not its first sign.
    await waitFor(async () => (await row(id)).hold === 'RELEASED', 10_000, 'hold released');
    expect(await row(id)).toEqual({ status: 'FAILED', hold: 'RELEASED', charges: 0 });
    expect(await balance(user)).toBe(1);
    const tx = await call('GET', `/v1/users/${user.userId}/transactions?start_date=2020-01-01`, { auth: user.auth });
    expect(tx.body.map((t: { status: string }) => t.status)).toEqual(['CREDITED']);
    const status = await call('GET', `/v1/wa/apps/${app.id}/messages/${id}`, { auth: user.auth });
    expect(status.body).toMatchObject({
      status: 'FAILED',
      failure: { code: '131026', reason: 'Message undeliverable' },
    });
    // A late delivery report after the failure charges nothing and moves nothing.
    await emit('message.delivered', { message_id: id, status: 'DELIVERED' });
    await waitFor(
      async () =>
        (
          await factory.dataSource.query(
            `SELECT 1 FROM message_events WHERE message_id = $1 AND status = 'DELIVERED'`,
            [id],
          )
        ).length === 1,
      10_000,
      'late delivered recorded',
    );
    await eventsHandled();
    expect(await row(id)).toEqual({ status: 'FAILED', hold: 'RELEASED', charges: 0 });
    expect(await balance(user)).toBe(1);
  });

  it('read before delivered: the status ends READ and exactly one transaction is written', async () => {
    const { user, app } = await tenant(1);
    const id = (await sendTemplate(user, app)).body.message.id as string;
    await emit('message.sent', { message_id: id, status: 'SENT', provider_message_id: 'wamid.READFIRST' });
    await emit('message.read', { message_id: id, status: 'READ', provider_message_id: 'wamid.READFIRST' });
    await emit('message.delivered', { message_id: id, status: 'DELIVERED', provider_message_id: 'wamid.READFIRST' });
    await emit('message.delivered', { message_id: id, status: 'DELIVERED', provider_message_id: 'wamid.READFIRST' });
    await waitFor(
      async () =>
        (await factory.dataSource.query(`SELECT count(*)::int AS n FROM message_events WHERE message_id = $1`, [id]))[0]
          .n === 4,
      10_000,
      'four timeline steps',
    );
    await waitFor(async () => (await row(id)).hold === 'CAPTURED', 10_000, 'hold captured');
    await eventsHandled();
    expect(await row(id)).toEqual({ status: 'READ', hold: 'CAPTURED', charges: 1 });
    const tx = await call('GET', `/v1/users/${user.userId}/transactions?start_date=2020-01-01`, { auth: user.auth });
    expect(tx.status).toBe(200);
    const charges = tx.body.filter((t: { status: string }) => t.status === 'DELIVERED');
    expect(charges).toEqual([
      {
        id: expect.any(String),
        app_id: app.id,
        amount: -PRICE,
        currency: 'USD',
        status: 'DELIVERED',
        category: 'UTILITY',
        assumed_category: 'UTILITY',
        pricing_type: null,
        uncharged: 0,
        recipient_phone: '7999*****22',
        campaign_id: null,
        timestamp: expect.any(Number),
      },
    ]);
    expect(await balance(user)).toBeCloseTo(1 - PRICE, 4);
    const [b] = await factory.dataSource.query(`SELECT held FROM balances WHERE user_id = $1`, [user.userId]);
    expect(b.held).toBe('0.0000');
    const status = await call('GET', `/v1/wa/apps/${app.id}/messages/${id}`, { auth: user.auth });
    expect(status.body.status).toBe('READ');
    expect(status.body.timeline.map((s: { status: string }) => s.status).sort()).toEqual([
      'DELIVERED',
      'QUEUED',
      'READ',
      'SENT',
    ]);
  });

  it('callbacks that carry only the channel id are matched through message.sent, even when they overtake it', async () => {
    const { user, app } = await tenant(1);
    const id = (await sendTemplate(user, app)).body.message.id as string;
    // The delivery report arrives before the queue's message.sent has told us the channel id.
    await emit('message.delivered', { status: 'DELIVERED', provider_message_id: 'wamid.EARLY' });
    await emit('message.sent', { message_id: id, status: 'SENT', provider_message_id: 'wamid.EARLY' });
    await waitFor(async () => (await row(id)).hold === 'CAPTURED', 20_000, 'captured via the channel id');
    expect(await row(id)).toEqual({ status: 'DELIVERED', hold: 'CAPTURED', charges: 1 });
    expect(await balance(user)).toBeCloseTo(1 - PRICE, 4);
  });

  it('a callback from another tenant’s connection settles nothing; the owning connection’s callback does', async () => {
    const { user, app } = await tenant(1);
    const other = await tenant(1);
    const id = (await sendTemplate(user, app)).body.message.id as string;
    await emit('message.sent', { message_id: id, status: 'SENT', provider_message_id: 'wamid.OWNED' });
    await eventsHandled();
    // The other tenant's number reports our message (by our id, then by the channel's id) as failed.
    const forged = { status: 'FAILED', error: { code: '131026', title: 'forged' } };
    await emit('message.failed', { ...forged, message_id: id, connection_id: other.app.phoneNumberId });
    await emit('message.failed', {
      ...forged,
      message_id: 'wamid.OWNED',
      provider_message_id: 'wamid.OWNED',
      connection_id: other.app.phoneNumberId,
    });
    await eventsHandled();
    expect(await row(id)).toEqual({ status: 'SENT', hold: 'HELD', charges: 0 });
    expect(await balance(user)).toBeCloseTo(1 - PRICE, 4);

    await emit('message.delivered', {
      status: 'DELIVERED',
      message_id: 'wamid.OWNED',
      provider_message_id: 'wamid.OWNED',
      connection_id: app.phoneNumberId,
    });
    await waitFor(async () => (await row(id)).hold === 'CAPTURED', 10_000, 'charge captured');
    expect(await row(id)).toEqual({ status: 'DELIVERED', hold: 'CAPTURED', charges: 1 });
  });

  describe('the charge follows what the channel billed (pricing in the status callback)', () => {
    const pricing = (category: string, type = 'regular', billable = true) => ({
      category: category.toUpperCase(),
      channel_category: category,
      type,
      billable,
      pricing_model: 'PMP',
    });
    /** The message's charge: amount, category charged, category assumed, pricing type, uncharged. */
    const charge = async (messageId: string) =>
      Object.values(
        (
          await factory.dataSource.query(
            `SELECT amount::text, category, assumed_category, pricing_type, uncharged::text
             FROM transactions WHERE message_id = $1`,
            [messageId],
          )
        )[0] as Record<string, string | null>,
      );
    const money = async (user: TestUser) =>
      (
        await factory.dataSource.query(`SELECT available::text, held::text FROM balances WHERE user_id = $1`, [
          user.userId,
        ])
      )[0] as { available: string; held: string };
    const captured = (id: string) => waitFor(async () => (await row(id)).hold === 'CAPTURED', 10_000, 'captured');

    it('a utility template the channel does not bill (open service window) is captured at 0 and the balance shows it', async () => {
      const { user, app } = await tenant(1);
      const id = (await sendTemplate(user, app)).body.message.id as string;
      expect(await balance(user)).toBeCloseTo(1 - PRICE, 4);
      await emit('message.delivered', {
        message_id: id,
        status: 'DELIVERED',
        pricing: pricing('utility', 'free_customer_service', false),
      });
      await captured(id);
      expect(await balance(user)).toBe(1);
      expect(await money(user)).toEqual({ available: '1.0000', held: '0.0000' });
      expect(await charge(id)).toEqual(['0.0000', 'UTILITY', 'UTILITY', 'free_customer_service', '0.0000']);
      const report = await call('GET', `/v1/wa/apps/${app.id}/messages/${id}`, { auth: user.auth });
      expect(report.body).toMatchObject({
        category: 'UTILITY',
        price: PRICE,
        billed_category: 'UTILITY',
        pricing_type: 'free_customer_service',
        charged: 0,
      });
      // The later read receipt, priced again, changes no money.
      await emit('message.read', { message_id: id, status: 'READ', pricing: pricing('marketing') });
      await eventsHandled();
      expect(await money(user)).toEqual({ available: '1.0000', held: '0.0000' });
    });

    it('a marketing template billed as marketing_lite is charged the marketing_lite price, the rest returned', async () => {
      const { user, app } = await tenant(1);
      await factory.sendableTemplate(app.id, { name: 'weekly_promo', category: 'MARKETING', body: 'Sale {{1}}' });
      const sent = await call('POST', `/v1/wa/apps/${app.id}/messages`, {
        auth: user.auth,
        body: {
          phone: '79990001122',
          type: 'TEMPLATE',
          template: { name: 'weekly_promo', components: { body: { values: ['today'] } } },
        },
      });
      const id = sent.body.message.id as string;
      expect(await money(user)).toEqual({ available: '0.9500', held: '0.0500' });
      await emit('message.read', { message_id: id, status: 'READ', pricing: pricing('marketing_lite') });
      await captured(id);
      expect(await money(user)).toEqual({ available: '0.9700', held: '0.0000' });
      expect(await charge(id)).toEqual(['-0.0300', 'MARKETING_LITE', 'MARKETING', 'regular', '0.0000']);
      const [usage] = await factory.dataSource.query(
        `SELECT category, cost::text FROM usage_hourly WHERE user_id = $1 AND cost > 0`,
        [user.userId],
      );
      expect(usage).toEqual({ category: 'MARKETING_LITE', cost: '0.0300' });
    });

    it('a dearer billed category is charged up to the available balance, the rest recorded, never below zero', async () => {
      const { user, app } = await tenant(PRICE + 0.01);
      const id = (await sendTemplate(user, app)).body.message.id as string;
      expect(await money(user)).toEqual({ available: '0.0100', held: '0.0200' });
      await emit('message.delivered', { message_id: id, status: 'DELIVERED', pricing: pricing('marketing') });
      await captured(id);
      expect(await money(user)).toEqual({ available: '0.0000', held: '0.0000' });
      expect(await charge(id)).toEqual(['-0.0300', 'MARKETING', 'UTILITY', 'regular', '0.0200']);
    });

    it('a final status without pricing (older API versions) charges the price assumed at send', async () => {
      const { user, app } = await tenant(1);
      const id = (await sendTemplate(user, app)).body.message.id as string;
      await emit('message.delivered', { message_id: id, status: 'DELIVERED' });
      await captured(id);
      expect(await charge(id)).toEqual(['-0.0200', 'UTILITY', 'UTILITY', null, '0.0000']);
      expect(await money(user)).toEqual({ available: '0.9800', held: '0.0000' });
    });
  });
});
