import { createDataSource } from '@app/database';
import { waitFor } from '@app/testing';
import { AccountsRepository } from '../../apps/gateway/src/accounts/accounts.repository';
import { gatewaySchema } from '../../apps/gateway/src/database/schema';
import { client } from '../../apps/api/test/support/http';
import { AppEntity } from '../../apps/api/src/wa-apps/app.entity';
import { SpawnedPlatform, spawnPlatform } from '../../scripts/bench/spawned-platform';
import { ApiFactory, TestUser } from '../support/factories';
import { OtlpReceiver, ReceivedSpan } from '../support/otlp-receiver';
import { registerSandboxNumber } from '../support/sandbox';
import { Endpoint } from '../support/webhook-endpoint';

const SERVER = 2;
const CLIENT = 3;
const PRODUCER = 4;
const CONSUMER = 5;

/**
 * As a platform team: with OTEL_EXPORTER_OTLP_ENDPOINT set, one send is one trace from the api's
 * accept through the JetStream publish, the queue's channel call, the channel's callback at the
 * gateway, the api's status update and the webhook delivery; and no span carries the recipient's
 * number or the message's content. Every service runs as its own process, exporting over OTLP/HTTP
 * to a receiver in this test.
 */
describe('tracing', () => {
  let receiver: OtlpReceiver;
  let platform: SpawnedPlatform;
  let factory: ApiFactory;
  let user: TestUser;
  let app: AppEntity;
  let endpoint: Endpoint;
  const customer = '5511987654321';
  const values = ['Ana Traced', 'ORDER-7731'];

  const api = (method: string, path: string, body?: unknown) =>
    client(`${platform.urls.api}/api`)(method, `/v1${path}`, { auth: user.auth, body });

  beforeAll(async () => {
    receiver = await new OtlpReceiver().open();
    platform = await spawnPlatform(
      { smoke: true, seconds: 5, natsUrl: process.env.NATS_URL!, databaseUrl: process.env.DATABASE_URL! },
      {
        suite: 'e2e_tracing',
        services: ['sandbox', 'webhooks', 'gateway', 'queue', 'api'],
        env: { ...receiver.env(), WEBHOOK_POLL_INTERVAL_MS: '100', SANDBOX_STATUS_DELAY_MS: '100' },
      },
    );
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    user = await factory.user('system', { balance: 5 });
    app = await factory.activeApp(user.userId, { message_limit: 'TIER_250' });
    await registerSandboxNumber(platform.urls.sandbox, app);
    await factory.sendableTemplate(app.id, { name: 'order_ready', body: 'Hi {{1}}, your order {{2}} is ready.' });
    endpoint = await new Endpoint().open();
  }, 240_000);

  afterAll(async () => {
    await endpoint?.close();
    await factory?.close();
    await platform?.stop();
    await receiver?.close();
  });

  /** The spans of the trace `root` is in, and the names of a span's exported ancestors (nearest first). */
  const traceUnder = (root: () => ReceivedSpan | undefined) => {
    const inTrace = (): ReceivedSpan[] => receiver.spans.filter((s) => s.traceId === root()?.traceId);
    const find = (service: string, kind: number, name: RegExp, attrs: Record<string, unknown> = {}) =>
      inTrace().find(
        (s) =>
          s.service === service &&
          s.kind === kind &&
          name.test(s.name) &&
          Object.entries(attrs).every(([k, v]) => s.attributes[k] === v),
      );
    const ancestry = (span: ReceivedSpan): string[] => {
      const byId = new Map(inTrace().map((t) => [t.spanId, t]));
      const names: string[] = [];
      for (let p = byId.get(span.parentSpanId); p; p = byId.get(p.parentSpanId)) names.push(`${p.service}:${p.name}`);
      return names;
    };
    return { inTrace, find, ancestry };
  };

  /** Spans are exported in batches every 200 ms: the last ones follow the webhook shortly. */
  const everyStepTraced = (
    root: () => ReceivedSpan | undefined,
    steps: () => Record<string, ReceivedSpan | undefined>,
  ) =>
    waitFor(
      () => {
        const missing = Object.entries(steps()).filter(([, span]) => !span);
        if (root() && missing.length === 0) return true;
        throw new Error(`not in the trace: ${root() ? missing.map(([k]) => k).join(', ') : 'its root'}`);
      },
      20_000,
      'every step traced',
      200,
    );

  it('one send is one connected trace across the services, without personal data', async () => {
    const created = await api('POST', '/subscriptions', { url: endpoint.url(), events: '*' });
    expect(created.status).toBe(201);
    endpoint.secret = created.body.secret;

    const sent = await api('POST', `/wa/apps/${app.id}/messages`, {
      phone: customer,
      type: 'TEMPLATE',
      template: { name: 'order_ready', components: { body: { values } } },
    });
    expect(sent.status).toBe(201);
    const messageId = sent.body.message.id as string;
    await waitFor(
      () => endpoint.of(messageId).some((e) => e.type === 'message.delivered'),
      60_000,
      'message.delivered at the endpoint',
      100,
    );

    const accept = () =>
      receiver.spans.find(
        (s) => s.service === 'api' && s.kind === SERVER && /^POST \/api\/v1\/wa\/apps\/:\w+\/messages$/.test(s.name),
      );
    const { inTrace, find, ancestry } = traceUnder(accept);
    const steps = () => ({
      publish: find('api', PRODUCER, /^send \S*outbound\.service\.whatsapp$/, { 'messaging.message.id': messageId }),
      consume: find('queue', CONSUMER, /^process \S*outbound\.service\.whatsapp$/),
      channelCall: find('queue', CLIENT, /^whatsapp send$/, { 'messaging.message.id': messageId }),
      callback: find('gateway', 1, /^whatsapp callback message\.delivered$/, { 'messaging.message.id': messageId }),
      statusUpdate: find('api', 1, /^message status update$/, { 'app.message.status': 'DELIVERED' }),
      webhook: find('webhooks', CLIENT, /^webhook delivery$/, { 'app.event.type': 'message.delivered' }),
    });
    await everyStepTraced(accept, steps);

    const s = steps();
    // Connected: each step descends from the accept, through parents that were all exported. A
    // parent is exported when it ends, after its children: the last of them may still be on its way.
    const parentsExported = () => {
      const exported = new Set(inTrace().map((t) => t.spanId));
      return inTrace().every((span) => span === accept() || exported.has(span.parentSpanId));
    };
    await waitFor(parentsExported, 10_000, "every span's parent exported", 100).catch(() => undefined);
    for (const step of Object.values(s)) expect(ancestry(step!).at(-1)).toBe(`api:${accept()!.name}`);
    const ids = new Set(inTrace().map((t) => t.spanId));
    for (const span of inTrace()) if (span !== accept()) expect(ids.has(span.parentSpanId)).toBe(true);
    // The order of the way: publish < consume < channel call < callback < status update and webhook.
    expect(ancestry(s.consume!)).toContain(`api:${s.publish!.name}`);
    expect(ancestry(s.channelCall!)).toContain(`queue:${s.consume!.name}`);
    expect(ancestry(s.callback!)).toContain(`queue:${s.channelCall!.name}`);
    expect(ancestry(s.statusUpdate!)).toContain(`gateway:${s.callback!.name}`);
    expect(ancestry(s.webhook!)).toContain(`gateway:${s.callback!.name}`);
    // The callback's own request is linked, not parent: a callback may name many messages.
    expect(s.callback!.links.length).toBe(1);
    // HTTP semantic conventions on the accept.
    expect(accept()!.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.response.status_code': 201 });

    // Nothing exported anywhere holds the number or the content.
    const exported = receiver.bodies.join('\n');
    for (const secret of [customer, `+${customer}`, ...values]) expect(exported).not.toContain(secret);
  });

  it('a send through the gateway is one trace from its accept, through the api, to the channel call', async () => {
    const gatewayDb = createDataSource(platform.infra.databaseUrl, gatewaySchema, 1);
    await gatewayDb.initialize();
    const token = (await new AccountsRepository(gatewayDb).createAccount('tracing', user.userId)).token;
    await gatewayDb.destroy();
    const gateway = client(platform.urls.gateway);
    const auth = `Bearer ${token}`;
    const linked = await gateway('POST', '/v1/connections', { auth, body: { channel: 'whatsapp', app_id: app.id } });
    expect(linked.status).toBe(201);
    const sent = await gateway('POST', '/v1/messages', {
      auth,
      body: { channel: 'whatsapp', to: customer, template: 'order_ready', params: values },
    });
    expect(sent.status).toBe(202);
    const messageId = sent.body.id as string;

    const accept = () =>
      receiver.spans.find((s) => s.service === 'gateway' && s.kind === SERVER && s.name === 'POST /v1/messages');
    const { find, ancestry } = traceUnder(accept);
    const steps = () => ({
      rpc: find('api', SERVER, /messages\.gateway\.send$/),
      publish: find('api', PRODUCER, /^send \S*outbound\.service\.whatsapp$/, { 'messaging.message.id': messageId }),
      channelCall: find('queue', CLIENT, /^whatsapp send$/, { 'messaging.message.id': messageId }),
    });
    await everyStepTraced(accept, steps);
    const s = steps();
    expect(ancestry(s.channelCall!)).toEqual(
      expect.arrayContaining([`api:${s.publish!.name}`, `api:${s.rpc!.name}`, `gateway:${accept()!.name}`]),
    );
    expect(ancestry(s.channelCall!).at(-1)).toBe(`gateway:${accept()!.name}`);
  });
});
