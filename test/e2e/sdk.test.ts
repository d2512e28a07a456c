import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, IncomingMessage, Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDataSource } from '@app/database';
import { waitFor } from '@app/testing';
import {
  CampaignRecipient,
  createApiClient,
  createGatewayClient,
  GatewayClient,
  MessageReport,
  verifyWebhook,
  WebhookEvent,
  WebhookVerificationError,
} from '@messaging-platform/sdk';
import { AccountsRepository } from '../../apps/gateway/src/accounts/accounts.repository';
import { gatewaySchema } from '../../apps/gateway/src/database/schema';
import { ApiFactory } from '../support/factories';
import { Platform, startPlatform } from '../support/platform';
import { registerSandboxNumber } from '../support/sandbox';

interface Received {
  body: string;
  headers: IncomingMessage['headers'];
}

/** A subscriber's endpoint that keeps every request as it came (raw body, headers) and answers 204. */
async function receiver(): Promise<{ server: Server; url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ body: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks`, received };
}

/**
 * A client app on the SDK: it subscribes to webhooks through the api, connects channels and sends
 * a template through the gateway, waits for each message's final status, pages through the
 * report, and verifies the signed webhooks it receives, all with `@messaging-platform/sdk`. The
 * rate limit is low, so some calls are refused with 429 and go through on the SDK's retries.
 */
describe('a client app on the TypeScript SDK', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let gateway: GatewayClient;
  let endpoint: Awaited<ReturnType<typeof receiver>>;
  let secret = '';
  let appId = 0;
  /** The status of every answer the gateway gave the SDK, retries included. */
  const statuses: number[] = [];
  const template = 'order_ready';

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'e2e-sdk',
      services: ['api', 'gateway', 'queue', 'webhooks', 'sandbox'],
      env: {
        WEBHOOK_POLL_INTERVAL_MS: '100',
        SANDBOX_STATUS_DELAY_MS: '100',
        // Two requests at once, then one a second: a burst of sends is answered 429 with Retry-After.
        RATE_LIMIT_PER_SECOND: '1',
        RATE_LIMIT_BURST: '2',
      },
    });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    const user = await factory.user('system', { balance: 5 });
    const app = await factory.activeApp(user.userId, { message_limit: 'TIER_250' });
    appId = app.id;
    await registerSandboxNumber(platform.urls.sandbox, app);
    await factory.sendableTemplate(app.id, { name: template, body: 'Hi {{1}}, your order {{2}} is ready.' });
    const gatewayDb = createDataSource(platform.infra.databaseUrl, gatewaySchema, 1);
    await gatewayDb.initialize();
    const accountToken = (await new AccountsRepository(gatewayDb).createAccount('sdk', user.userId)).token;
    await gatewayDb.destroy();
    endpoint = await receiver();

    const api = createApiClient({ baseUrl: platform.urls.api, token: user.token });
    const subscription = await api.http.POST('/v1/subscriptions', { body: { url: endpoint.url, events: '*' } });
    expect(subscription.response.status).toBe(201);
    secret = (subscription.data as { secret: string }).secret;

    gateway = createGatewayClient({
      baseUrl: platform.urls.gateway,
      token: accountToken,
      // At one request a second, concurrent sends contend for the bucket: some wait several turns.
      retry: { attempts: 10 },
      fetch: async (request) => {
        const response = await fetch(request);
        statuses.push(response.status);
        return response;
      },
    });
    const linked = await gateway.http.POST('/v1/connections', { body: { channel: 'whatsapp', app_id: app.id } });
    expect(linked.data?.state).toBe('active');
    const bot = (await (
      await fetch(`${platform.urls.sandbox}/_sandbox/telegram/bots`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      })
    ).json()) as { token: string };
    const connected = await gateway.http.POST('/v1/connections', {
      body: { channel: 'telegram', bot_token: bot.token },
    });
    expect(connected.data?.bot?.id).toEqual(expect.any(String));
  });

  afterAll(async () => {
    await new Promise((resolve) => endpoint?.server.close(resolve));
    await factory?.close();
    await platform?.stop();
  });

  /** The requests the endpoint received about a message, verified with the SDK. */
  const eventsOf = (messageId: string): WebhookEvent[] =>
    endpoint.received
      .map((r) => verifyWebhook(secret, r.body, r.headers))
      .filter((e) => e.data.message_id === messageId);

  it('sends a template through the gateway, waits for its final status and verifies its signed webhooks', async () => {
    const { id, status } = await gateway.send({
      channel: 'whatsapp',
      to: '5511987654321',
      template,
      params: ['Ana', 'A-1001'],
    });
    expect(status).toBe('QUEUED');
    const report = await gateway.waitForFinalStatus(id, { intervalMs: 200 });
    expect(['DELIVERED', 'READ']).toContain(report.status);
    expect(report).toMatchObject({ id, channel: 'whatsapp', failure: null });

    const events = await waitFor(
      () => {
        const types = new Set(eventsOf(id).map((e) => e.type));
        return types.has('message.sent') && types.has('message.delivered') ? eventsOf(id) : false;
      },
      30_000,
      "the message's sent and delivered webhooks",
      200,
    );
    expect(events.find((e) => e.type === 'message.delivered')).toMatchObject({
      channel: 'whatsapp',
      app_id: appId,
      data: { message_id: id, status: 'DELIVERED' },
    });
    // What the SDK refuses: a body altered on the way, another secret.
    const one = endpoint.received.find((r) => r.body.includes(id)) as Received;
    expect(() => verifyWebhook(secret, one.body.replace(id, `${id}x`), one.headers)).toThrow(WebhookVerificationError);
    const other = `whsec_${Buffer.from('not-the-subscription-secret-at-all').toString('base64')}`;
    expect(() => verifyWebhook(other, one.body, one.headers)).toThrow(WebhookVerificationError);
  });

  it('a burst refused with 429 goes through on the retries, one message per send; the report pages through all', async () => {
    statuses.length = 0;
    const accepted = await Promise.all(
      ['424201', '424202', '424203', '424204'].map((to) =>
        gateway.send({ channel: 'telegram', to, template, params: ['Ana', to] }),
      ),
    );
    expect(statuses).toContain(429);
    expect(new Set(accepted.map((a) => a.id)).size).toBe(4);
    for (const { id } of accepted) {
      expect(await gateway.waitForFinalStatus(id, { intervalMs: 300 })).toMatchObject({
        channel: 'telegram',
        status: 'SENT',
      });
    }

    const listed: MessageReport[] = [];
    for await (const m of gateway.messages({ channel: 'telegram', limit: '1' })) listed.push(m);
    expect(listed.map((m) => m.id).sort()).toEqual(accepted.map((a) => a.id).sort());
  });

  it('answers every time as integer Unix seconds: a contact, its import, a campaign, its estimate and report', async () => {
    /** Each field as the SDK's types say it: a whole number of seconds, and about now. */
    const expectNow = (label: string, values: Record<string, number | null | undefined>) => {
      const now = Date.now() / 1000;
      for (const [field, v] of Object.entries(values)) {
        const ok = Number.isInteger(v) && Math.abs((v as number) - now) < 300;
        expect({ [`${label}.${field}`]: ok ? 'Unix seconds of now' : v }).toEqual({
          [`${label}.${field}`]: 'Unix seconds of now',
        });
      }
    };
    const file = join(mkdtempSync(join(tmpdir(), 'sdk-times-')), 'contacts.ndjson');
    writeFileSync(
      file,
      `${JSON.stringify({ external_id: 'clock-1', name: 'Ana', identities: { telegram: '424299' }, lists: ['clock'] })}\n`,
    );
    const started = await gateway.contacts.importFile(file);
    const imported = await gateway.contacts.waitForImport(started.id, { intervalMs: 300 });
    expect(imported).toMatchObject({ state: 'completed', created: 1, rejected: 0 });
    expectNow('import', { created_at: imported.created_at, finished_at: imported.finished_at });
    const contact = await gateway.contacts.get('ext:clock-1');
    expectNow('contact', { created_at: contact.created_at, updated_at: contact.updated_at });

    const draft = await gateway.campaigns.create({
      name: 'Clock',
      template,
      params: ['{{contact.name}}', 'C-1'],
      audience: { list: 'clock' },
      channels: ['telegram'],
    });
    const estimate = await gateway.campaigns.estimate(draft.id);
    expect(estimate.recipients).toBe(1);
    expectNow('estimate.time', { finish_at: estimate.time.finish_at });
    await gateway.campaigns.launch(draft.id);
    const done = await gateway.campaigns.waitForEnd(draft.id, { intervalMs: 300 });
    expect(done).toMatchObject({ state: 'completed', estimated_finish_at: null });
    const { created_at, updated_at, launched_at, started_at, completed_at } = done;
    expectNow('campaign', { created_at, updated_at, launched_at, started_at, completed_at });
    const recipients: CampaignRecipient[] = [];
    for await (const r of gateway.campaigns.recipients(draft.id)) recipients.push(r);
    expect(recipients).toMatchObject([{ external_id: 'clock-1', next_attempt_at: null }]);
    expectNow('recipient', { queued_at: recipients[0].queued_at, updated_at: recipients[0].updated_at });
  });

  it('serves the gateway document the SDK is generated from, and its docs page', async () => {
    const document = (await (await fetch(`${platform.urls.gateway}/v1/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/v1/messages', '/v1/messages/{id}']));
    const page = await fetch(`${platform.urls.gateway}/v1/docs`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('/v1/docs/assets/swagger-ui-bundle.js');
  });
});
