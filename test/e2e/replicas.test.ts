import { randomUUID } from 'node:crypto';
import { CAMPAIGNS_RPC, CampaignRecipientInput } from '@app/contracts';
import { NatsClients, RpcClient } from '@app/messaging';
import { createDataSource } from '@app/database';
import { readEvents, waitFor } from '@app/testing';
import { AccountsRepository } from '../../apps/gateway/src/accounts/accounts.repository';
import { gatewaySchema } from '../../apps/gateway/src/database/schema';
import { SandboxWhatsApp } from '../../apps/queue/test/support/dispatch-kit';
import { postStatus } from '../../apps/gateway/test/support/whatsapp';
import type { AppEntity } from '../../apps/api/src/wa-apps/app.entity';
import { ApiFactory, TestUser } from '../support/factories';
import { Platform, startPlatform } from '../support/platform';
import { registerSandboxNumber } from '../support/sandbox';
import { commitTemplateSend } from '../support/send-records';
import { Endpoint } from '../support/webhook-endpoint';
import { burstAcross, expectLimitedAcross, TokenRate } from '../support/replica-bursts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** What a status-order test works with (see statusOrder). */
interface StatusOrder {
  /** The two gateway replicas' own addresses. */
  first: string;
  second: string;
  /** The app id and user id every event of the connection carries. */
  owner: [number, string];
  post(replica: string, wamid: string, status: 'sent' | 'delivered' | 'read', at: number): Promise<void>;
  /** A wamid's events in EVENTS, in stream order: [type, app_id, user_id]. */
  events(wamid: string): Promise<unknown[][]>;
  inboundLastSeq(): Promise<number>;
  /** An endpoint subscribed to these events of the connection's tenant. */
  subscribe(events: string[]): Promise<Endpoint>;
}

const PRICE = 0.1;
const prices = Object.fromEntries(
  ['MARKETING', 'MARKETING_LITE', 'UTILITY', 'SERVICE', 'AUTHENTICATION'].map((c) => [c, PRICE]),
);
/** Per token: a burst of 200 requests, then 2 a second, counted across every api replica. */
const RATE: TokenRate = { perSecond: 2, burst: 200 };

/**
 * Every service run as two replicas (the api's and the gateway's behind a round-robin balancer, the
 * sandbox's callbacks through it too), on the real Postgres and NATS: what one process guarantees
 * holds for two: money, the messaging tier at its edge, the per-token rate limit, a subscriber's
 * per-message order and a campaign's one message per recipient.
 */
describe('two replicas of every service', () => {
  let platform: Platform;
  let factory: ApiFactory;

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'e2e-replicas',
      services: ['api', 'gateway', 'queue', 'webhooks', 'sandbox'],
      replicas: { api: 2, gateway: 2, queue: 2, webhooks: 2 },
      env: {
        MESSAGE_PRICES: JSON.stringify(prices),
        RATE_LIMIT_PER_SECOND: String(RATE.perSecond),
        RATE_LIMIT_BURST: String(RATE.burst),
        SANDBOX_STATUS_DELAY_MS: '50',
        WEBHOOK_POLL_INTERVAL_MS: '100',
        SETTLEMENT_INTERVAL_MS: '500',
        OUTBOX_RELAY_AFTER_MS: '1000',
        RECEIPT_TIMEOUT_MINUTES: '1',
        CAMPAIGN_TICK_MS: '100',
      },
    });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
  });

  afterAll(async () => {
    await factory?.close();
    await platform?.stop();
  });

  const sql = <T = Record<string, unknown>>(query: string, params: unknown[] = []) =>
    factory.dataSource.query(query, params) as Promise<T[]>;
  const call = async (base: string, user: TestUser, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}/api/v1${path}`, {
      method,
      headers: { authorization: user.auth, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as Json };
  };
  const send = (user: TestUser, app: AppEntity, phone: string, template = 'notice') =>
    call(platform.urls.api, user, 'POST', `/wa/apps/${app.id}/messages`, {
      phone,
      type: 'TEMPLATE',
      template: { name: template, components: { body: { values: ['Ann'] } } },
    });
  async function sendingApp(user: TestUser, opts: Parameters<ApiFactory['activeApp']>[1] = {}): Promise<AppEntity> {
    const app = await factory.activeApp(user.userId, opts);
    await factory.sendableTemplate(app.id, { name: 'notice', body: 'Hello {{1}}', category: 'UTILITY' });
    await registerSandboxNumber(platform.urls.sandbox, app);
    return app;
  }
  /** How many times the channel accepted each of these messages (the sandbox records our id with each send). */
  const channelCalls = async (ids: string[]) => {
    const sends = await new SandboxWhatsApp(platform.urls.sandbox).sends();
    const calls = new Map(ids.map((id) => [id, 0]));
    for (const s of sends) {
      const id = s.body.biz_opaque_callback_data as string | undefined;
      if (s.outcome === 'accepted' && id !== undefined && calls.has(id)) calls.set(id, calls.get(id)! + 1);
    }
    return calls;
  };
  const balanceOf = async (userId: string) => {
    const [row] = await sql<{ available: string; held: string }>(
      `SELECT available, held FROM balances WHERE user_id = $1`,
      [userId],
    );
    return { available: Number(row.available), held: Number(row.held) };
  };

  it('runs each service as two instances, the api and the gateway reached through a balancer that spreads requests', async () => {
    for (const name of ['api', 'gateway', 'queue', 'webhooks'] as const) {
      expect(platform.replicaApps[name]?.filter(Boolean)).toHaveLength(2);
      const ready = await Promise.all(platform.replicaUrls[name]!.map((r) => fetch(`${r.adminUrl}/readyz`)));
      expect(ready.map((r) => r.status)).toEqual([200, 200]);
    }
    const before = platform.balancers.api!.counts();
    const user = await factory.user('system');
    for (let i = 0; i < 4; i++) {
      expect((await call(platform.urls.api, user, 'GET', `/users/${user.userId}/balances`)).status).toBe(200);
    }
    const after = platform.balancers.api!.counts();
    expect(after.map((n, i) => n - before[i])).toEqual([2, 2]);
  });

  it("one user's balance under concurrent sends to both api replicas covers exactly what it can and ends exact", async () => {
    const user = await factory.user('system', { balance: 3 });
    const app = await sendingApp(user, { message_limit: 'TIER_UNLIMITED' });
    const covered = Math.round(3 / PRICE);
    let lowest = Infinity;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        lowest = Math.min(lowest, (await balanceOf(user.userId)).available);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    // Twice as many sends as the balance covers, all at once, alternating replicas through the balancer.
    const results = await Promise.all(
      Array.from({ length: covered * 2 }, (_, i) => send(user, app, `4916${String(i).padStart(6, '0')}1111`)),
    );
    sampling = false;
    await sampler;
    const accepted = results.filter((r) => r.status === 201);
    const refused = results.filter((r) => r.status !== 201);
    expect(accepted).toHaveLength(covered);
    expect(new Set(refused.map((r) => r.body.type))).toEqual(new Set(['/problems/insufficient-balance']));
    expect(lowest).toBeGreaterThanOrEqual(0);

    // Every accepted message is delivered and charged once: nothing held, nothing left, 30 charges.
    await waitFor(
      async () => {
        const [row] = await sql<{ n: string }>(
          `SELECT count(*) AS n FROM holds WHERE user_id = $1 AND status = 'CAPTURED'`,
          [user.userId],
        );
        return Number(row.n) === covered;
      },
      60_000,
      'every hold captured',
      200,
    );
    expect(await balanceOf(user.userId)).toEqual({ available: 0, held: 0 });
    const holds = await sql<{ status: string; n: string }>(
      `SELECT status, count(*) AS n FROM holds WHERE user_id = $1 GROUP BY status`,
      [user.userId],
    );
    expect(holds.map((h) => [h.status, Number(h.n)])).toEqual([['CAPTURED', covered]]);
    const [charges] = await sql<{ n: string; total: string }>(
      `SELECT count(*) AS n, sum(amount) AS total FROM transactions WHERE user_id = $1 AND amount < 0`,
      [user.userId],
    );
    expect(Number(charges.n)).toBe(covered);
    expect(Number(charges.total)).toBeCloseTo(-3, 4);
    const calls = await channelCalls(accepted.map((r) => r.body.message.id as string));
    expect([...calls.values()]).toEqual(accepted.map(() => 1));
  });

  it('sends whose publish was lost are relayed from the outbox by the two api replicas, each reaching the channel once', async () => {
    const user = await factory.user('system', { balance: 100 });
    const app = await sendingApp(user, { message_limit: 'TIER_UNLIMITED' });
    // Committed (message, hold, outbox row) without the publish, as an api killed right after its commit leaves them.
    const lost = [];
    for (let i = 0; i < 40; i++) {
      lost.push(
        await commitTemplateSend(platform.replicaApps.api![i % 2]!, platform.infra.topology, {
          userId: user.userId,
          app,
          recipient: `4915${String(i).padStart(6, '0')}1111`,
          category: 'UTILITY',
          price: PRICE,
          template: 'notice',
        }),
      );
    }
    const ids = lost.map((m) => m.id);
    await waitFor(
      async () => {
        const [row] = await sql<{ n: string }>(
          `SELECT count(*) AS n FROM messages WHERE id = ANY($1) AND status = 'DELIVERED'`,
          [ids],
        );
        return Number(row.n) === ids.length;
      },
      60_000,
      'every relayed message delivered',
      200,
    );
    // Both relays run every 500 ms: a second publish would have reached the channel by now.
    await new Promise((r) => setTimeout(r, 1500));
    const calls = await channelCalls(ids);
    expect([...calls.values()]).toEqual(ids.map(() => 1));
    const [charged] = await sql<{ n: string }>(
      `SELECT count(*) AS n FROM transactions WHERE message_id = ANY($1) AND amount < 0`,
      [ids],
    );
    expect(Number(charged.n)).toBe(ids.length);
  });

  it('messages with no receipt past the timeout are failed once by the two api replicas, each hold released once', async () => {
    const user = await factory.user('system', { balance: 10 });
    const app = await sendingApp(user, { message_limit: 'TIER_UNLIMITED' });
    const stuck = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        commitTemplateSend(platform.replicaApps.api![i % 2]!, platform.infra.topology, {
          userId: user.userId,
          app,
          recipient: `4914${String(i).padStart(6, '0')}1111`,
          category: 'UTILITY',
          price: PRICE,
          template: 'notice',
        }),
      ),
    );
    const ids = stuck.map((m) => m.id);
    // Never published (their outbox rows gone before the relay's 1 s), accepted two minutes ago: past the 1-minute timeout.
    await sql(`DELETE FROM outbox WHERE id = ANY($1)`, [ids]);
    await sql(`UPDATE messages SET created_at = now() - interval '2 minutes' WHERE id = ANY($1)`, [ids]);
    await waitFor(
      async () => {
        const [row] = await sql<{ n: string }>(
          `SELECT count(*) AS n FROM messages WHERE id = ANY($1) AND status = 'FAILED' AND failure_code = 'no_receipt'`,
          [ids],
        );
        return Number(row.n) === ids.length;
      },
      30_000,
      'every message failed as no_receipt',
      200,
    );
    expect(await balanceOf(user.userId)).toEqual({ available: 10, held: 0 });
    const holds = await sql<{ status: string; n: string }>(
      `SELECT status, count(*) AS n FROM holds WHERE message_id = ANY($1) GROUP BY status`,
      [ids],
    );
    expect(holds.map((h) => [h.status, Number(h.n)])).toEqual([['RELEASED', ids.length]]);
    const events = await sql<{ message_id: string; n: string }>(
      `SELECT message_id, count(*) AS n FROM message_events WHERE message_id = ANY($1) AND status = 'FAILED' GROUP BY message_id`,
      [ids],
    );
    expect(events.map((e) => Number(e.n))).toEqual(ids.map(() => 1));
    expect([...(await channelCalls(ids)).values()]).toEqual(ids.map(() => 0));
  });

  it('the messaging tier at its edge: of 80 new recipients sent to at once over both replicas, exactly 50 are accepted', async () => {
    const user = await factory.user('system', { balance: 100 });
    const app = await sendingApp(user, { message_limit: 'TIER_50' });
    const phones = Array.from({ length: 80 }, (_, i) => `4917${String(i).padStart(6, '0')}1111`);
    const results = await Promise.all(phones.map((p) => send(user, app, p)));
    const accepted = phones.filter((_, i) => results[i].status === 201);
    expect(accepted).toHaveLength(50);
    for (const r of results.filter((x) => x.status !== 201)) {
      expect(r).toMatchObject({ status: 429, body: { type: '/problems/messaging-tier-exceeded' } });
    }
    // A recipient already counted is sent to again; a new one is still refused, on either replica.
    expect((await send(user, app, accepted[0])).status).toBe(201);
    expect((await send(user, app, accepted[1])).status).toBe(201);
    const late = phones.find((p) => !accepted.includes(p))!;
    expect((await send(user, app, late)).status).toBe(429);
    expect((await send(user, app, late)).status).toBe(429);
  });

  it("one token's rate limit is counted across both api replicas", async () => {
    const user = await factory.user('system');
    const replicas = platform.replicaUrls.api!.map((r) => r.url);
    expectLimitedAcross(RATE, await burstAcross(RATE, replicas, `/api/v1/users/${user.userId}/balances`, user.auth));
  });

  it("one account token's rate limit is counted across both gateway replicas", async () => {
    const user = await factory.user('system');
    const gatewayDb = createDataSource(platform.infra.databaseUrl, gatewaySchema, 1);
    await gatewayDb.initialize();
    const { token } = await new AccountsRepository(gatewayDb).createAccount('replicas', user.userId);
    await gatewayDb.destroy();
    const replicas = platform.replicaUrls.gateway!.map((r) => r.url);
    expectLimitedAcross(RATE, await burstAcross(RATE, replicas, '/v1/connections', `Bearer ${token}`));
  });

  /**
   * A new app on its own WhatsApp connection, and what a test of status order across the two gateway
   * replicas posts and reads: a signed status to one replica, the statuses of a wamid in EVENTS
   * (type, app, user), INBOUND's last sequence, and a subscriber of the app's tenant.
   */
  async function statusOrder(wabaId: string, phoneNumberId: string, run: (o: StatusOrder) => Promise<void>) {
    const user = await factory.user('system');
    const app = await factory.activeApp(user.userId, { waba_id: wabaId, phone_number_id: phoneNumberId });
    const clients = await NatsClients.connect({ url: platform.infra.natsUrl, name: `replicas-status-order-${wabaId}` });
    const t = platform.infra.topology;
    const jsm = await clients.jsm();
    const [first, second] = platform.replicaUrls.gateway!.map((r) => r.url);
    try {
      await run({
        first,
        second,
        owner: [app.id, user.userId],
        post: async (replica, wamid, status, at) =>
          expect((await postStatus(replica, { wabaId, phoneNumberId }, wamid, status, at)).status).toBe(200),
        events: async (wamid) =>
          (await readEvents(clients, t))
            .filter((e) => (e.data as { provider_message_id?: string }).provider_message_id === wamid)
            .map((e) => [e.type, e.app_id, e.user_id]),
        inboundLastSeq: async () => (await jsm.streams.info(t.stream('inbound'))).state.last_seq,
        subscribe: async (events) => {
          const endpoint = await new Endpoint().open();
          const sub = await call(platform.urls.api, user, 'POST', '/subscriptions', { url: endpoint.url(), events });
          expect(sub.status).toBe(201);
          endpoint.secret = sub.body.secret as string;
          return endpoint;
        },
      });
    } finally {
      await clients.drain();
    }
  }

  it("a subscriber never gets a message's status below one it was sent, whatever order the gateway replicas store them in", () =>
    statusOrder('3900002', '4900002', async ({ first, second, owner, post, events, subscribe }) => {
      const endpoint = await subscribe(['message.sent', 'message.delivered', 'message.read']);
      const received = () => endpoint.of('wamid.AWAY-1').map((e) => e.type);
      try {
        await post(second, 'wamid.AWAY-0', 'sent', 1763700100);
        // With the api away, a replica that does not know the connection's owner leaves its status
        // in INBOUND for the relay, and one that knows it publishes at once: `delivered` and `read`
        // may reach EVENTS in either order.
        await platform.stopService('api', 0);
        await platform.stopService('api', 1);
        try {
          await post(first, 'wamid.AWAY-1', 'delivered', 1763700101);
          await post(second, 'wamid.AWAY-1', 'read', 1763700102);
        } finally {
          await platform.startService('api', 0);
          await platform.startService('api', 1);
        }
        await waitFor(async () => (await events('wamid.AWAY-1')).length === 2, 30_000, 'both statuses in EVENTS', 200);
        // The channel's late `sent`, to either replica, ranks below both.
        await post(first, 'wamid.AWAY-1', 'sent', 1763700100);
        await waitFor(async () => (await events('wamid.AWAY-1')).length === 3, 30_000, '`sent` in EVENTS', 200);
        const stored = (await events('wamid.AWAY-1')).map(([type]) => type);
        expect(await events('wamid.AWAY-1')).toEqual(stored.map((type) => [type, ...owner]));
        // What the subscriber gets: each status that ranks above every one before it in EVENTS.
        const rank: Record<string, number> = { 'message.sent': 1, 'message.delivered': 2, 'message.read': 3 };
        let top = 0;
        const forward = stored.filter((type) => rank[type as string] > top && (top = rank[type as string]) > 0);
        expect(forward).not.toContain('message.sent');
        await waitFor(() => received().length >= forward.length, 30_000, 'the subscriber caught up', 100);
        await new Promise((r) => setTimeout(r, 1500));
        expect(endpoint.rejected).toEqual([]);
        expect(received()).toEqual(forward);
      } finally {
        await endpoint.close();
      }
    }));

  it("a subscriber gets each message's events in lifecycle order from two webhooks replicas", async () => {
    const user = await factory.user('system', { balance: 100 });
    const app = await sendingApp(user, { message_limit: 'TIER_UNLIMITED' });
    const endpoint = await new Endpoint().open();
    try {
      const sub = await call(platform.urls.api, user, 'POST', '/subscriptions', {
        url: endpoint.url(),
        events: ['message.sent', 'message.delivered', 'message.read'],
      });
      expect(sub.status).toBe(201);
      endpoint.secret = sub.body.secret as string;
      const results = await Promise.all(
        Array.from({ length: 30 }, (_, i) => send(user, app, `4918${String(i).padStart(6, '0')}7777`)),
      );
      expect(results.map((r) => r.status)).toEqual(results.map(() => 201));
      const ids = results.map((r) => r.body.message.id as string);
      await waitFor(
        () => ids.every((id) => endpoint.of(id).some((e) => e.type === 'message.read')),
        60_000,
        'every message read at the subscriber',
        100,
      );
      // A short wait lets a late duplicate or straggler show up if there were one.
      await new Promise((r) => setTimeout(r, 1000));
      expect(endpoint.rejected).toEqual([]);
      for (const id of ids) {
        expect(endpoint.of(id).map((e) => e.type)).toEqual(['message.sent', 'message.delivered', 'message.read']);
      }
    } finally {
      await endpoint.close();
    }
  });

  it('a campaign run by both api replicas sends each of its 300 recipients exactly one message', async () => {
    const user = await factory.user('system', { balance: 100 });
    const app = await sendingApp(user, { message_limit: 'TIER_10K' });
    const rpc = new RpcClient({ url: platform.infra.natsUrl, prefix: platform.infra.prefix, name: 'replicas-test' });
    try {
      const accountId = randomUUID();
      const phone = (seq: number) => `4919${String(seq).padStart(6, '0')}1111`;
      const recipients: CampaignRecipientInput[] = Array.from({ length: 300 }, (_, i) => ({
        seq: i + 1,
        contact_id: `contact-${i + 1}`,
        external_id: `ext-${i + 1}`,
        time_zone: 'UTC',
        route: [{ channel: 'whatsapp', to: phone(i + 1) }],
        params: [`Name ${i + 1}`],
      }));
      const draft = await rpc.call(CAMPAIGNS_RPC.create, {
        account_id: accountId,
        user_id: user.userId,
        definition: {
          name: 'Replicas',
          template: 'notice',
          params: ['{{contact.name}}'],
          audience: { list: 'customers' },
          channels: ['whatsapp'],
        },
      });
      const ref = { account_id: accountId, id: draft.id };
      await rpc.call(CAMPAIGNS_RPC.load, { ...ref, reset: true, recipients });
      const started = await rpc.call(CAMPAIGNS_RPC.launch, { ...ref, template_app_id: app.id, total: 300 });
      expect(started.state).toBe('running');
      const done = await waitFor(
        async () => {
          const view = await rpc.call(CAMPAIGNS_RPC.get, ref);
          return view.state === 'completed' && view;
        },
        120_000,
        'the campaign completed',
        250,
      );
      expect(done.counts.pending).toBe(0);
      const messages = await sql<{ recipient: string; n: string }>(
        `SELECT recipient, count(*) AS n FROM messages WHERE campaign_id = $1 GROUP BY recipient`,
        [draft.id],
      );
      expect(messages).toHaveLength(300);
      expect(messages.filter((m) => Number(m.n) !== 1)).toEqual([]);
      const rows = await sql<{ seq: number; message_id: string | null; recipient: string | null }>(
        `SELECT r.seq, r.message_id, m.recipient FROM campaign_recipients r LEFT JOIN messages m ON m.id = r.message_id
          WHERE r.campaign_id = $1`,
        [draft.id],
      );
      expect(rows.filter((r) => r.recipient !== phone(r.seq))).toEqual([]);
      // Each send held its price once.
      const [held] = await sql<{ n: string }>(
        `SELECT count(*) AS n FROM holds h JOIN messages m ON m.id = h.message_id WHERE m.campaign_id = $1`,
        [draft.id],
      );
      expect(Number(held.n)).toBe(300);
    } finally {
      await rpc.onApplicationShutdown();
    }
  });

  it('with one api replica stopped the other answers every request, and the restarted one is back in rotation', async () => {
    const user = await factory.user('system');
    const balances = () => call(platform.urls.api, user, 'GET', `/users/${user.userId}/balances`);
    await platform.stopService('api', 1);
    const before = platform.balancers.api!.counts();
    for (let i = 0; i < 4; i++) expect((await balances()).status).toBe(200);
    expect(platform.balancers.api!.counts()[1]).toBe(before[1]);
    await platform.startService('api', 1);
    const restarted = platform.balancers.api!.counts();
    for (let i = 0; i < 4; i++) expect((await balances()).status).toBe(200);
    expect(platform.balancers.api!.counts().map((n, i) => n - restarted[i])).toEqual([2, 2]);
  });
});
