import { NatsProxy, startNatsProxy, waitFor } from '@app/testing';
import { apiClient } from '../support/api-client';
import { gatewayAccount } from '../support/campaigns';
import { ApiFactory, TestUser } from '../support/factories';
import { Platform, startPlatform } from '../support/platform';
import { registerSandboxNumber, sandboxWebhooks, statusesCarried } from '../support/sandbox';

const MESSAGES = 20;
const PRICE = 0.02; // UTILITY

/**
 * Channel callbacks never wait for the api: with the api stopped while the channel reports the
 * statuses of messages it accepted, every callback is acknowledged at once (none retried, none
 * lost), and once the api is back every message reaches its final status and every hold is
 * captured, the balance exact. (SIGKILL of the api as a real process: the chaos suite.)
 */
describe('an api outage while the channel reports statuses', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let user: TestUser;
  let appId: number;

  const api = apiClient(
    () => platform.urls.api,
    () => user.auth,
  );
  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'api-outage',
      services: ['api', 'gateway', 'queue', 'sandbox'],
      // The channel reports each status a while after the send, by which time the api is stopped.
      env: { SANDBOX_STATUS_DELAY_MS: '1500' },
    });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    user = await factory.user('system', { balance: 1 });
    const app = await factory.activeApp(user.userId, { message_limit: 'TIER_250' });
    appId = app.id;
    await registerSandboxNumber(platform.urls.sandbox, app);
    await factory.sendableTemplate(app.id, { name: 'outage_note', category: 'UTILITY', body: 'Note {{1}}' });
  });

  afterAll(async () => {
    await factory?.close();
    await platform?.stop();
  });

  it('acknowledges every callback while the api is down, then settles every message and hold', async () => {
    const ids: string[] = [];
    for (let i = 0; i < MESSAGES; i++) {
      const res = await api('POST', `/wa/apps/${appId}/messages`, {
        phone: `79990${String(i).padStart(3, '0')}55`, // no recipient rule: sent, delivered, read
        type: 'TEMPLATE',
        template: { name: 'outage_note', components: { body: { values: [String(i)] } } },
      });
      expect(res.status).toBe(201);
      ids.push(res.body.message.id);
    }
    await platform.stopService('api');
    try {
      // The channel sends sent, delivered and read of each message while the api is down.
      const hooks = await waitFor(
        async () => {
          const all = (await sandboxWebhooks(platform.urls.sandbox)).filter((w) => w.field === 'messages');
          const statuses = all.reduce((n, w) => n + statusesCarried(w), 0);
          return statuses >= MESSAGES * 3 && all.every((w) => w.delivered) ? all : false;
        },
        30_000,
        'every status callback delivered',
        200,
      );
      expect(hooks.every((w) => w.status === 200 && w.attempts === 1)).toBe(true);
    } finally {
      await platform.startService('api');
    }
    const statuses = await waitFor(
      async () => {
        const all = await Promise.all(ids.map((id) => api('GET', `/wa/apps/${appId}/messages/${id}`)));
        const st = all.map((r) => r.body.status as string);
        return st.every((s) => s === 'READ') ? st : false;
      },
      60_000,
      'every message READ',
      250,
    );
    expect(statuses).toHaveLength(MESSAGES);
    const [held] = (await factory.dataSource.query(
      `SELECT count(*)::int AS n FROM holds WHERE user_id = $1 AND status = 'HELD'`,
      [user.userId],
    )) as { n: number }[];
    expect(held.n).toBe(0);
    const balance = await api('GET', `/users/${user.userId}/balances`);
    expect(balance.body.balance).toBeCloseTo(1 - MESSAGES * PRICE, 4);
  });
});

/**
 * NATS stores a send's publish and its answer is lost (the connection is cut right after the
 * publish reached the server, every time, until the publish deadline has passed): the send is an
 * unknown, not a failure. The request is answered with its message, a retry with the same
 * Idempotency-Key gets that same message, the channel gets it once, and it is charged once, through
 * the api and through the gateway (which sends by request/reply to the api) alike.
 */
describe('a publish whose answer NATS loses', () => {
  let platform: Platform;
  let proxy: NatsProxy;
  let factory: ApiFactory;
  let user: TestUser;
  let appId: number;
  let gatewayToken: string;

  beforeAll(async () => {
    // Global setup has set NATS_URL: every service reaches NATS through the proxy.
    proxy = await startNatsProxy(process.env.NATS_URL!);
    platform = await startPlatform({
      suite: 'publish-answer-lost',
      services: ['api', 'gateway', 'queue', 'sandbox'],
      env: {
        NATS_URL: proxy.url,
        SANDBOX_STATUS_DELAY_MS: '50',
        // The relay republishes what the request path left: soon, well inside the duplicate window.
        SETTLEMENT_INTERVAL_MS: '500',
        OUTBOX_RELAY_AFTER_MS: '1000',
      },
    });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    user = await factory.user('system', { balance: 1 });
    const app = await factory.activeApp(user.userId, { message_limit: 'TIER_250' });
    appId = app.id;
    await registerSandboxNumber(platform.urls.sandbox, app);
    await factory.sendableTemplate(appId, { name: 'lost_ack', category: 'UTILITY', body: 'Order {{1}}' });
    gatewayToken = await gatewayAccount(platform.infra.databaseUrl, 'shop', user.userId);
    const connected = await fetch(`${platform.urls.gateway}/v1/connections`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gatewayToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ channel: 'whatsapp', app_id: appId }),
    });
    expect(connected.status).toBe(201);
  });

  afterAll(async () => {
    await factory?.close();
    await platform?.stop();
    await proxy?.close();
  });

  const post = async (url: string, auth: string, key: string, body: unknown) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as { message?: { id: string }; id?: string };
    return {
      status: res.status,
      id: json.message?.id ?? json.id ?? null,
      replayed: res.headers.get('idempotent-replayed'),
    };
  };

  /**
   * Sends once while every publish to the outbound streams loses its answer, then retries with the
   * same key as a client does after an error or a timeout, and settles: what the person and the
   * account saw.
   */
  const sendThroughLostAnswers = async (send: () => Promise<Awaited<ReturnType<typeof post>>>, phone: string) => {
    const balanceBefore = await balanceOf();
    const cutsBefore = proxy.cuts;
    proxy.cutAfterPublishTo(`${platform.env.NATS_PREFIX}.outbound.`);
    let first: Awaited<ReturnType<typeof post>>;
    try {
      first = await send();
    } finally {
      proxy.passThrough();
    }
    const cuts = proxy.cuts - cutsBefore;
    // A careful client retries with the same key until it is answered (a 503 while the api reconnects).
    const retry = await waitFor(
      async () => {
        const r = await send();
        return r.status < 500 ? r : false;
      },
      30_000,
      'the retry answered',
      200,
    );
    const ids = [...new Set([first.id, retry.id].filter((id): id is string => id !== null))];
    // Settled: every message of the key final and its work item gone from the outbox.
    const finals = await waitFor(
      async () => {
        const rows = (await factory.dataSource.query(
          `SELECT m.status, (SELECT count(*)::int FROM outbox o WHERE o.id = m.id) AS outbox
             FROM messages m WHERE m.id = ANY($1::text[])`,
          [ids],
        )) as { status: string; outbox: number }[];
        const settled = rows.every((r) => ['READ', 'FAILED'].includes(r.status) && r.outbox === 0);
        return settled ? rows.map((r) => r.status) : false;
      },
      60_000,
      'the messages of the key settled',
      250,
    );
    const sandbox = (await (await fetch(`${platform.urls.sandbox}/_sandbox/whatsapp/messages`)).json()) as {
      body: { to?: string };
      outcome: string;
    }[];
    return {
      cuts,
      outcome: {
        answers: [first.status, retry.status],
        sameMessage: first.id !== null && first.id === retry.id,
        retryReplayed: retry.replayed,
        statuses: finals,
        atTheChannel: sandbox.filter((r) => r.outcome === 'accepted' && r.body.to === phone).length,
        charged: Math.round((balanceBefore - (await balanceOf())) * 10_000) / 10_000,
      },
    };
  };

  const balanceOf = async () => {
    const res = await fetch(`${platform.urls.api}/api/v1/users/${user.userId}/balances`, {
      headers: { authorization: user.auth },
    });
    return ((await res.json()) as { balance: number }).balance;
  };

  /** What the person and the account must see: one message for the key, once at the channel, charged once. */
  const once = (accepted: number) => ({
    answers: [accepted, accepted],
    sameMessage: true,
    retryReplayed: 'true',
    statuses: ['READ'],
    atTheChannel: 1,
    charged: PRICE,
  });

  it('a send through the api: one message, once at the channel, charged once', async () => {
    const phone = '79991234501';
    const body = { phone, type: 'TEMPLATE', template: { name: 'lost_ack', components: { body: { values: ['1'] } } } };
    const { cuts, outcome } = await sendThroughLostAnswers(
      () => post(`${platform.urls.api}/api/v1/wa/apps/${appId}/messages`, user.auth, 'order-1', body),
      phone,
    );
    expect(cuts).toBeGreaterThan(0);
    expect(outcome).toEqual(once(201));
  });

  it('a send through the gateway: the same', async () => {
    const phone = '79991234502';
    const body = { channel: 'whatsapp', to: phone, template: 'lost_ack', params: ['2'] };
    const { cuts, outcome } = await sendThroughLostAnswers(
      () => post(`${platform.urls.gateway}/v1/messages`, `Bearer ${gatewayToken}`, 'order-2', body),
      phone,
    );
    expect(cuts).toBeGreaterThan(0);
    expect(outcome).toEqual(once(202));
  });
});
