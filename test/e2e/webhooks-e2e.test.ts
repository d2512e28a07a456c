import { waitFor } from '@app/testing';
import { AppEntity } from '../../apps/api/src/wa-apps/app.entity';
import { ApiFactory, TestUser } from '../support/factories';
import { Platform, startPlatform } from '../support/platform';
import { registerSandboxNumber } from '../support/sandbox';
import { Endpoint } from '../support/webhook-endpoint';

/**
 * As a new user: subscribe to every event, send a template message and receive its sent,
 * delivered and read events signed and stamped with the app; receive an inbound message; survive
 * an endpoint outage through the retries. Through api, queue, sandbox (WhatsApp), gateway and webhooks.
 */
describe('webhooks end to end', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let user: TestUser;
  let app: AppEntity;
  let endpoint: Endpoint;
  let subscriptionId: string;
  const customer = '5511987654321';
  const tpl = 'order_ready';

  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${platform.urls.api}/api/v1${path}`, {
      method,
      headers: { authorization: user.auth, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as any };
  };

  const sendTemplate = async (name: string): Promise<string> => {
    const res = await api('POST', `/wa/apps/${app.id}/messages`, {
      phone: customer,
      type: 'TEMPLATE',
      template: { name: tpl, components: { body: { values: [name, 'A-1001'] } } },
    });
    expect(res.status).toBe(201);
    return res.body.message.id as string;
  };

  const typesOf = (messageId: string) => new Set(endpoint.of(messageId).map((e) => e.type));

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'e2e-webhooks',
      services: ['api', 'gateway', 'queue', 'webhooks', 'sandbox'],
      env: {
        // Long enough (about 19 s in all) to outlast the outage below; short enough for a test.
        WEBHOOK_RETRY_SCHEDULE: '300,600,1200,2400,4800,9600',
        WEBHOOK_POLL_INTERVAL_MS: '100',
        SANDBOX_STATUS_DELAY_MS: '100',
      },
    });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    user = await factory.user('system', { balance: 5 });
    app = await factory.activeApp(user.userId, { message_limit: 'TIER_250' });
    await registerSandboxNumber(platform.urls.sandbox, app);
    await factory.sendableTemplate(app.id, { name: tpl, body: 'Hi {{1}}, your order {{2}} is ready.' });
    endpoint = await new Endpoint().open();
  });

  afterAll(async () => {
    await endpoint?.close();
    await factory?.close();
    await platform?.stop();
  });

  it('a subscriber receives sent, delivered and read of a message it sent, signed and with its app', async () => {
    const created = await api('POST', '/subscriptions', { url: endpoint.url(), events: '*' });
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_/);
    endpoint.secret = created.body.secret;
    subscriptionId = created.body.id;

    const messageId = await sendTemplate('Ana');
    await waitFor(
      () => ['message.sent', 'message.delivered', 'message.read'].every((t) => typesOf(messageId).has(t)),
      30_000,
      'sent, delivered and read of the message at the endpoint',
      100,
    );
    expect(endpoint.rejected).toEqual([]);
    // Each step exactly once: `sent` is told both by the queue and by the channel's callback, and
    // shares one event id. (A short wait lets a late second report show up if it were not dropped.)
    await new Promise((r) => setTimeout(r, 1000));
    expect(
      endpoint
        .of(messageId)
        .map((e) => e.type)
        .sort(),
    ).toEqual(['message.delivered', 'message.read', 'message.sent']);
    for (const e of endpoint.of(messageId)) {
      expect(e).toMatchObject({ channel: 'whatsapp', app_id: app.id, data: { message_id: messageId } });
    }
    const byType = (t: string) => endpoint.of(messageId).find((e) => e.type === t)!;
    expect(byType('message.delivered').data).toMatchObject({ status: 'DELIVERED', recipient: customer });
    expect(byType('message.read').data).toMatchObject({ status: 'READ' });
    // The tenant routes the event but is not part of what subscribers receive.
    for (const body of endpoint.bodies) expect(JSON.parse(body)).not.toHaveProperty('user_id');

    // The api's own view of the message followed the same callbacks.
    await waitFor(
      async () =>
        ['DELIVERED', 'READ'].includes((await api('GET', `/wa/apps/${app.id}/messages/${messageId}`)).body.status),
      20_000,
      'the message delivered in the api',
      100,
    );
  });

  it('a message the customer writes arrives as message.received', async () => {
    const res = await fetch(`${platform.urls.sandbox}/_sandbox/whatsapp/inbound`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ phone_number_id: app.phoneNumberId, from: customer, text: 'Where is my parcel?' }),
    });
    expect(res.status).toBeLessThan(300);
    const received = await waitFor(
      () => endpoint.events.find((e) => e.type === 'message.received' && e.data.text === 'Where is my parcel?'),
      20_000,
      'message.received at the endpoint',
      100,
    );
    expect(received).toMatchObject({
      channel: 'whatsapp',
      app_id: app.id,
      data: { from: customer, type: 'text', connection_id: app.phoneNumberId },
    });
  });

  it('events of messages sent while the endpoint is down arrive once it is back', async () => {
    const port = endpoint.port;
    await endpoint.close();
    const ids = [await sendTemplate('Bea'), await sendTemplate('Caio')];
    // The platform has the events and tried the endpoint at least once meanwhile.
    for (const id of ids) {
      await waitFor(
        async () => (await api('GET', `/wa/apps/${app.id}/messages/${id}`)).body.status === 'READ',
        20_000,
        `${id} read in the api`,
        100,
      );
    }
    await waitFor(
      async () => {
        const attempts = (await api('GET', `/subscriptions/${subscriptionId}/attempts`)).body as { status: string }[];
        return attempts.some((a) => a.status === 'FAILED');
      },
      20_000,
      'a failed attempt while the endpoint is down',
      100,
    );
    expect(ids.flatMap((id) => endpoint.of(id))).toEqual([]);

    const secret = endpoint.secret;
    endpoint = new Endpoint(port);
    endpoint.secret = secret;
    await endpoint.open();
    await waitFor(
      () => ids.every((id) => ['message.sent', 'message.delivered', 'message.read'].every((t) => typesOf(id).has(t))),
      30_000,
      'every event of both messages after the endpoint came back',
      100,
    );
    expect(endpoint.rejected).toEqual([]);
    for (const id of ids) {
      for (const e of endpoint.of(id)) expect(e.app_id).toBe(app.id);
    }
    // Nothing is left pending: every delivery of the outage succeeded through its retries.
    await waitFor(
      async () => {
        const pending = (await api('GET', `/subscriptions/${subscriptionId}/deliveries?status=PENDING`))
          .body as unknown[];
        return pending.length === 0;
      },
      20_000,
      'no pending deliveries',
      200,
    );
  });
});
