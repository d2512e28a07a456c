import { randomBytes } from 'node:crypto';
import { createDataSource } from '@app/database';
import { NatsClients } from '@app/messaging';
import { eventsOf, waitFor } from '@app/testing';
import { ApiFactory } from '../../../test/support/factories';
import { Platform, startPlatform } from '../../../test/support/platform';
import { registerSandboxBot } from '../../../test/support/sandbox';
import { Endpoint } from '../../../test/support/webhook-endpoint';
import { AccountsRepository } from '../src/accounts/accounts.repository';
import { gatewaySchema } from '../src/database/schema';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A short duplicate window, so that a repeated open reaches the recording instead of being dropped by the broker. */
const DUPLICATE_WINDOW_MS = 1_000;

/**
 * The tracking pixel of a gateway message, through every service: the report hands out its URL;
 * loading it answers a 43-byte GIF no cache keeps, and marks the message READ once (one
 * `message.read` event, one webhook), however often it is loaded. Forged and made-up tokens get
 * the same GIF and record nothing; a FAILED message stays FAILED.
 */
describe('the tracking pixel', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let clients: NatsClients;
  let endpoint: Endpoint;
  let token: string;

  const gateway = async (path: string, body?: unknown) => {
    const res = await fetch(`${platform.urls.gateway}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };
  const pixel = async (url: string) => {
    const res = await fetch(url);
    return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
  };
  const expectGif = (res: Awaited<ReturnType<typeof pixel>>) => {
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/gif');
    expect(res.bytes).toHaveLength(43);
    expect(res.bytes.subarray(0, 6).toString('ascii')).toBe('GIF89a');
    expect(res.headers.get('cache-control')).toContain('no-store');
    expect(res.headers.get('pragma')).toBe('no-cache');
  };
  const reportAt = (id: string, status: string) =>
    waitFor(
      async () => {
        const res = await gateway(`/v1/messages/${id}`);
        return res.body?.status === status ? res.body : false;
      },
      20_000,
      `message ${id} at ${status}`,
      100,
    );
  const send = async (to: string) => {
    const res = await gateway('/v1/messages', { channel: 'telegram', to, template: 'lesson_ready', params: ['Ann'] });
    expect(res.status).toBe(202);
    return res.body.id as string;
  };
  const readEventsOf = (id: string) =>
    eventsOf<{ message_id: string }>(clients, platform.infra.topology, 'message.read', (d) => d.message_id === id, 0);
  /** Opens stored in INBOUND and every one of them recorded (the stream is a work queue). */
  const inbound = async () => {
    const info = await (await clients.jsm()).streams.info(platform.infra.topology.stream('inbound'));
    return { stored: info.state.last_seq, waiting: info.state.messages };
  };
  const allRecorded = () =>
    waitFor(async () => ((await inbound()).waiting === 0 ? true : false), 20_000, 'every stored open recorded', 100);

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'gw-pixel',
      services: ['api', 'gateway', 'queue', 'webhooks', 'sandbox'],
      env: { WEBHOOK_POLL_INTERVAL_MS: '100' },
      topology: { duplicateWindowMs: DUPLICATE_WINDOW_MS },
    });
    clients = await NatsClients.connect({ url: platform.infra.natsUrl, name: 'pixel-test' });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    const user = await factory.user('system', { balance: 10 });
    const app = await factory.activeApp(user.userId, { message_limit: 'TIER_250' });
    await factory.sendableTemplate(app.id, {
      name: 'lesson_ready',
      category: 'UTILITY',
      body: 'Hi {{1}}, a new lesson.',
    });
    const gatewayDb = createDataSource(platform.infra.databaseUrl, gatewaySchema, 1);
    await gatewayDb.initialize();
    token = (await new AccountsRepository(gatewayDb).createAccount('school', user.userId)).token;
    await gatewayDb.destroy();
    expect((await gateway('/v1/connections', { channel: 'whatsapp', app_id: app.id })).status).toBe(201);
    const bot = await registerSandboxBot(platform.urls.sandbox, 'telegram');
    expect((await gateway('/v1/connections', { channel: 'telegram', bot_token: bot.token })).status).toBe(201);
    endpoint = await new Endpoint().open();
    const sub = await fetch(`${platform.urls.api}/api/v1/subscriptions`, {
      method: 'POST',
      headers: { authorization: user.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ url: endpoint.url(), events: ['message.read'] }),
    });
    expect(sub.status).toBe(201);
    endpoint.secret = ((await sub.json()) as { secret: string }).secret;
  });

  afterAll(async () => {
    await endpoint?.close();
    await clients?.drain();
    await factory?.close();
    await platform?.stop();
  });

  it('hands out an absolute pixel URL with an opaque token on the report and its list', async () => {
    const id = await send('1001');
    const report = await reportAt(id, 'SENT');
    const url = new URL(report.pixel_url as string);
    expect(`${url.protocol}//${url.host}`).toBe(new URL(platform.env.GATEWAY_PUBLIC_URL).origin);
    expect(url.pathname).toMatch(/^\/v1\/course\/pixel\/[A-Za-z0-9_-]{60}\.gif$/);
    expect(url.pathname).not.toContain(id);
    expect(url.pathname).not.toContain(id.replace(/-/g, ''));
    expect((await gateway(`/v1/messages/${id}`)).body.pixel_url).toBe(report.pixel_url);
    const listed = (await gateway('/v1/messages?channel=telegram')).body.data as Json[];
    expect(listed.find((m) => m.id === id)?.pixel_url).toBe(report.pixel_url);
  });

  it('marks a message READ on its first open, once: one event, one webhook, however often it is loaded', async () => {
    const id = await send('1002');
    const { pixel_url: url } = await reportAt(id, 'SENT');
    expect(await readEventsOf(id)).toHaveLength(0);

    expectGif(await pixel(url));
    const read = await reportAt(id, 'READ');
    expect(read.timeline.map((t: Json) => t.status)).toEqual(['QUEUED', 'SENT', 'READ']);
    const [event] = await readEventsOf(id);
    expect(event).toMatchObject({
      type: 'message.read',
      channel: 'telegram',
      data: { message_id: id, status: 'READ' },
    });
    await waitFor(() => endpoint.of(id).length > 0, 20_000, 'the message.read webhook', 100);

    // Later opens, past the broker's duplicate window, reach the recording and change nothing.
    await new Promise((r) => setTimeout(r, DUPLICATE_WINDOW_MS + 200));
    const before = await inbound();
    expectGif(await pixel(url));
    expectGif(await pixel(url));
    await waitFor(async () => (await inbound()).stored > before.stored, 10_000, 'the repeated open stored', 50);
    await allRecorded();
    expect(await readEventsOf(id)).toHaveLength(1);
    expect((await gateway(`/v1/messages/${id}`)).body.timeline).toEqual(read.timeline);
    // The webhooks service has consumed every event by the time a later one reaches the endpoint:
    // a message.read of another message, sent after, proves the first got no second webhook.
    const later = await send('1003');
    expectGif(await pixel((await reportAt(later, 'SENT')).pixel_url));
    await waitFor(() => endpoint.of(later).length > 0, 20_000, 'the later webhook', 100);
    expect(endpoint.of(id).filter((e) => e.type === 'message.read')).toHaveLength(1);
    expect(endpoint.rejected).toEqual([]);
  });

  it('answers forged and made-up tokens with the same GIF and records nothing', async () => {
    const id = await send('1004');
    const { pixel_url: url } = await reportAt(id, 'SENT');
    const path = new URL(url).pathname;
    const genuine = path.slice('/v1/course/pixel/'.length, -'.gif'.length);
    const raw = Buffer.from(genuine, 'base64url');
    raw[20] ^= 0x01;
    const before = await inbound();
    for (const forged of [
      raw.toString('base64url'),
      randomBytes(45).toString('base64url'),
      genuine.slice(0, 40),
      'x',
    ]) {
      expectGif(await pixel(`${platform.urls.gateway}/v1/course/pixel/${forged}.gif`));
    }
    await allRecorded();
    expect((await inbound()).stored).toBe(before.stored);
    expect((await gateway(`/v1/messages/${id}`)).body.status).toBe('SENT');
    expect(await readEventsOf(id)).toHaveLength(0);
  });

  it('leaves a FAILED message FAILED when its pixel is loaded', async () => {
    // The emulator answers a recipient ending in 4444 as having blocked the bot.
    const id = await send('10004444');
    const failed = await reportAt(id, 'FAILED');
    const before = await inbound();
    expectGif(await pixel(failed.pixel_url));
    await waitFor(async () => (await inbound()).stored > before.stored, 10_000, 'the open stored', 50);
    await allRecorded();
    const after = (await gateway(`/v1/messages/${id}`)).body;
    expect(after.status).toBe('FAILED');
    expect(after.timeline).toEqual(failed.timeline);
    expect(await readEventsOf(id)).toHaveLength(0);
  });
});
