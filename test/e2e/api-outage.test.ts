import { waitFor } from '@app/testing';
import { apiClient } from '../support/api-client';
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
