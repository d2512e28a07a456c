import { DataSource } from 'typeorm';
import { createDataSource } from '@app/database';
import { EventEnvelope } from '@app/contracts';
import { NatsClients } from '@app/messaging';
import { waitFor } from '@app/testing';
import { ApiFactory, TestUser } from '../../../test/support/factories';
import { Platform, startPlatform } from '../../../test/support/platform';
import { registerSandboxNumber, sandboxControl } from '../../../test/support/sandbox';
import { Endpoint } from '../../../test/support/webhook-endpoint';
import { AccountsRepository } from '../src/accounts/accounts.repository';
import { gatewaySchema } from '../src/database/schema';
import { eventsOf } from './support/whatsapp';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * Conversations through the real services: what customers write on each channel lands in its
 * thread once, the account's sends join the same thread with their status, replies go out on the
 * customer's channel, and a conversation is worked with versioned changes.
 */
describe('conversations: threads in and out, replies, working a conversation', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let gatewayDb: DataSource;
  let clients: NatsClients;
  let user: TestUser;
  let app: Awaited<ReturnType<ApiFactory['activeApp']>>;
  let token: string;
  let otherToken: string;
  let endpoint: Endpoint;
  const bots: Record<'telegram' | 'max', { id: number; token: string }> = {} as never;

  const call = async (
    path: string,
    init: { method?: string; token?: string; body?: unknown; headers?: Record<string, string> } = {},
  ) => {
    const res = await fetch(`${platform.urls.gateway}${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: {
        ...(init.token ? { Authorization: `Bearer ${init.token}` } : {}),
        ...(init.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
        ...init.headers,
      },
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : null) as Json };
  };
  const sandbox = async (path: string, body?: unknown) =>
    (await sandboxControl<Json>(platform.urls.sandbox, path, body)).body;
  /** The account's conversation on a channel with the contact holding `address`, once it exists. */
  /** The conversation once its first message is in (it is opened a moment before its message lands). */
  const conversationOf = (channel: string, address: string) =>
    waitFor(
      async () => {
        const res = await call(`/v1/conversations?channel=${channel}&limit=100`, { token });
        return (res.body.data as Json[]).find((c) => c.contact.address === address && c.last_message) ?? false;
      },
      20_000,
      `the ${channel} conversation with ${address}`,
      100,
    );
  const messagesOf = async (id: string, query = '') =>
    (await call(`/v1/conversations/${id}/messages${query}`, { token })).body;
  const waitMessages = (id: string, n: number) =>
    waitFor(
      async () => {
        const page = await messagesOf(id, '?limit=100');
        return page.data.length >= n ? (page.data as Json[]) : false;
      },
      20_000,
      `${n} messages in ${id}`,
      100,
    );
  const heldHolds = async () =>
    (
      (await factory.dataSource.query(`SELECT count(*)::int AS n FROM holds WHERE user_id = $1`, [user.userId])) as {
        n: number;
      }[]
    )[0].n;

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'gw-conversations',
      services: ['api', 'gateway', 'queue', 'webhooks', 'sandbox'],
      env: {
        WEBHOOK_POLL_INTERVAL_MS: '100',
        SANDBOX_STATUS_DELAY_MS: '50',
        CHANNEL_MESSAGE_PRICES: JSON.stringify({
          telegram: { MARKETING: 0, MARKETING_LITE: 0, UTILITY: 0, SERVICE: 0, AUTHENTICATION: 0 },
          max: { MARKETING: 0, MARKETING_LITE: 0, UTILITY: 0, SERVICE: 0, AUTHENTICATION: 0 },
        }),
      },
    });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    gatewayDb = createDataSource(platform.infra.databaseUrl, gatewaySchema, 2);
    await gatewayDb.initialize();
    clients = await NatsClients.connect({ url: platform.infra.natsUrl, name: 'gw-conversations-test' });
    const accounts = new AccountsRepository(gatewayDb);
    user = await factory.user('system', { balance: 10 });
    app = await factory.activeApp(user.userId, { message_limit: 'TIER_250' });
    await registerSandboxNumber(platform.urls.sandbox, app);
    await factory.sendableTemplate(app.id, { name: 'order_ready', category: 'UTILITY', body: 'Hi {{1}}, ready.' });
    token = (await accounts.createAccount('shop', user.userId)).token;
    otherToken = (await accounts.createAccount('other', user.userId)).token;
    expect((await call('/v1/connections', { token, body: { channel: 'whatsapp', app_id: app.id } })).status).toBe(201);
    for (const channel of ['telegram', 'max'] as const) {
      bots[channel] = (await sandbox(`${channel}/bots`, {})) as { id: number; token: string };
      const res = await call('/v1/connections', { token, body: { channel, bot_token: bots[channel].token } });
      expect(res.status).toBe(201);
    }
    endpoint = await new Endpoint().open();
    const sub = await fetch(`${platform.urls.api}/api/v1/subscriptions`, {
      method: 'POST',
      headers: { authorization: user.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ url: endpoint.url(), events: ['conversation.message.created', 'conversation.assigned'] }),
    });
    expect(sub.status).toBe(201);
    endpoint.secret = ((await sub.json()) as { secret: string }).secret;
  });

  afterAll(async () => {
    await endpoint?.close();
    await clients?.drain();
    await gatewayDb?.destroy();
    await factory?.close();
    await platform?.stop();
  });

  it('keeps what a customer writes on each channel in its thread once, even when the update comes twice', async () => {
    const tg = await sandbox('telegram/inbound', { bot: bots.telegram.token, from: '7001', text: 'hi on telegram' });
    await sandbox('telegram/inbound', { bot: bots.telegram.token, repeat_update_id: tg.update_id });
    const mx = await sandbox('max/inbound', { bot: bots.max.token, from: '7002', text: 'hi on max' });
    await sandbox('max/inbound', { bot: bots.max.token, repeat_update_id: mx.update_id });
    await sandbox('whatsapp/inbound', {
      phone_number_id: app.phoneNumberId,
      from: '79990007003',
      text: 'hi on whatsapp',
      profile_name: 'Vera',
    });

    for (const [channel, address, text] of [
      ['telegram', '7001', 'hi on telegram'],
      ['max', '7002', 'hi on max'],
      ['whatsapp', '79990007003', 'hi on whatsapp'],
    ]) {
      const c = await conversationOf(channel, address);
      expect(c).toMatchObject({ channel, status: 'open', unread_count: 1, assignee: null, labels: [] });
      expect(c.last_message).toMatchObject({ direction: 'in', status: 'RECEIVED', content: { text } });
      const messages = await waitMessages(c.id, 1);
      expect(messages.map((m) => [m.direction, m.content.text])).toEqual([['in', text]]);
      // An unknown sender became a contact.
      const contact = await call(`/v1/contacts/${c.contact.id}`, { token });
      expect(contact.status).toBe(200);
    }
    const wa = await conversationOf('whatsapp', '79990007003');
    expect(wa.contact.name).toBe('Vera');
    // The window is the api's, which the same message opens.
    const window = await waitFor(
      async () => ((await call(`/v1/conversations/${wa.id}`, { token })).body.window as Json).open && wa,
      20_000,
      'the window open',
      100,
    );
    expect((await call(`/v1/conversations/${window.id}`, { token })).body.window).toEqual({
      open: true,
      expires_at: wa.last_message.timestamp + 86_400,
    });

    const created = await waitFor(
      async () => {
        const events = await eventsOf<Json>(clients, platform.infra.topology, 'conversation.message.created');
        return events.length >= 3 ? (events as EventEnvelope<Json>[]) : false;
      },
      20_000,
      'conversation.message.created events',
      200,
    );
    expect(created.filter((e) => e.data.direction === 'in')).toHaveLength(3);
    expect(created.every((e) => e.user_id === user.userId)).toBe(true);
    // Subscribers get them as webhooks, once each.
    const delivered = await waitFor(
      async () => {
        const got = (endpoint.events as unknown as Json[]).filter((e) => e.type === 'conversation.message.created');
        return got.length >= 3 ? got : false;
      },
      20_000,
      'conversation.message.created webhooks',
      100,
    );
    expect(new Set(delivered.map((e) => e.id)).size).toBe(delivered.length);
    expect(delivered.map((e) => e.data.content.text).sort()).toEqual(['hi on max', 'hi on telegram', 'hi on whatsapp']);
  });

  it('finds a WhatsApp sender by its phone or its business-scoped user id: one contact, one thread', async () => {
    const inbound = (body: Json) =>
      sandbox('whatsapp/inbound', { phone_number_id: app.phoneNumberId, from: '79990007030', ...body });
    await inbound({ text: 'with both', sender: 'phone_and_user_id', user_id: 'RU.7030' });
    const c = await conversationOf('whatsapp', '79990007030');
    await waitMessages(c.id, 1);
    await inbound({ text: 'id only', sender: 'user_id', user_id: 'RU.7030' });
    const messages = await waitMessages(c.id, 2);
    expect(messages.map((m) => m.content.text)).toEqual(['with both', 'id only']);
    const contact = await call(`/v1/contacts/${c.contact.id}`, { token });
    expect(contact.body.addresses).toEqual(
      expect.arrayContaining([
        { channel: 'whatsapp', kind: 'phone', value: '79990007030' },
        { channel: 'whatsapp', kind: 'user_id', value: 'RU.7030' },
      ]),
    );
    const all = await call('/v1/conversations?channel=whatsapp&limit=100', { token });
    expect((all.body.data as Json[]).filter((x) => x.contact.id === c.contact.id)).toHaveLength(1);
  });

  it('adds a template sent to a contact to its thread, with its status moving', async () => {
    const contact = await call('/v1/contacts', {
      token,
      body: { name: 'Ivan', identities: { whatsapp: '+79990007010' } },
    });
    expect(contact.status).toBe(201);
    const sent = await call('/v1/messages', {
      token,
      body: { contact: contact.body.id, channels: ['whatsapp'], template: 'order_ready', params: ['Ivan'] },
    });
    expect(sent.status).toBe(202);
    const c = await conversationOf('whatsapp', '79990007010');
    expect(c.contact.id).toBe(contact.body.id);
    const moved = await waitFor(
      async () => {
        const [m] = (await messagesOf(c.id)).data as Json[];
        return m && ['DELIVERED', 'READ'].includes(m.status as string) ? m : false;
      },
      20_000,
      'the template delivered in its thread',
      100,
    );
    expect(moved).toMatchObject({ direction: 'out', message_id: sent.body.id });
    // No message from the customer yet: the window is closed, and a free-form reply is refused before any hold.
    expect(c.window).toEqual({ open: false, expires_at: null });
    const holds = await heldHolds();
    const refused = await call(`/v1/conversations/${c.id}/messages`, { token, body: { text: 'are you there?' } });
    expect(refused.status).toBe(422);
    expect(refused.body.type).toMatch(/\/problems\/window-closed$/);
    expect(await heldHolds()).toBe(holds);
  });

  it('sends a reply on the channel the customer used, once per Idempotency-Key', async () => {
    for (const [channel, address] of [
      ['telegram', '7001'],
      ['max', '7002'],
      ['whatsapp', '79990007003'],
    ]) {
      const c = await conversationOf(channel, address);
      const headers = { 'Idempotency-Key': `reply-${channel}` };
      const body = { text: `answer on ${channel}` };
      const first = await call(`/v1/conversations/${c.id}/messages`, { token, body, headers });
      expect(first.status).toBe(202);
      const again = await call(`/v1/conversations/${c.id}/messages`, { token, body, headers });
      expect(again.body.id).toBe(first.body.id);
      const reached = await waitFor(
        async () => {
          const calls =
            channel === 'whatsapp'
              ? ((await sandbox(`whatsapp/messages?phone_number_id=${app.phoneNumberId}&to=${address}`)) as Json[])
              : ((await sandbox(`${channel}/calls?bot_id=${bots[channel as 'telegram' | 'max'].id}`)) as Json[]);
          return JSON.stringify(calls).includes(`answer on ${channel}`) ? calls : false;
        },
        20_000,
        `the ${channel} reply at the emulator`,
        100,
      );
      expect(reached).toBeTruthy();
      const messages = await waitMessages(c.id, 2);
      expect(messages.map((m) => [m.direction, m.content.text])).toEqual([
        ['in', `hi on ${channel}`],
        ['out', `answer on ${channel}`],
      ]);
    }
  });

  it('pages messages both ways in channel order', async () => {
    for (let i = 1; i <= 4; i++) {
      await sandbox('telegram/inbound', { bot: bots.telegram.token, from: '7020', text: `m${i}` });
    }
    const c = await conversationOf('telegram', '7020');
    await waitMessages(c.id, 4);
    const latest = await messagesOf(c.id, '?limit=2');
    expect(latest.data.map((m: Json) => m.content.text)).toEqual(['m3', 'm4']);
    const older = await messagesOf(c.id, `?limit=2&before=${latest.next_cursor}`);
    expect(older.data.map((m: Json) => m.content.text)).toEqual(['m1', 'm2']);
    expect(older.next_cursor).toBeNull();
    const newer = await messagesOf(c.id, `?limit=2&after=${older.data[0].id}`);
    expect(newer.data.map((m: Json) => m.content.text)).toEqual(['m2', 'm3']);
    expect(newer.next_cursor).toBe(newer.data[1].id);
    const bad = await call(`/v1/conversations/${c.id}/messages?before=${c.id}`, { token });
    expect(bad.status).toBe(400);
  });

  it('works a conversation: one change per version, events, read markers, and lists by filters', async () => {
    const c = await conversationOf('max', '7002');
    const got = await call(`/v1/conversations/${c.id}`, { token });
    const etag = got.headers.get('etag')!;
    expect(etag).toBe(`"${got.body.version}"`);
    const [a, b] = await Promise.all([
      call(`/v1/conversations/${c.id}`, {
        token,
        method: 'PATCH',
        body: { assignee: 'agent-1' },
        headers: { 'If-Match': etag },
      }),
      call(`/v1/conversations/${c.id}`, {
        token,
        method: 'PATCH',
        body: { status: 'pending', labels: ['vip'] },
        headers: { 'If-Match': etag },
      }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 412]);
    expect((a.status === 412 ? a : b).body.type).toMatch(/\/problems\/precondition-failed$/);
    const patched = await call(`/v1/conversations/${c.id}`, {
      token,
      method: 'PATCH',
      body: { status: 'closed', assignee: 'bot-7', labels: ['vip', 'billing'] },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ status: 'closed', assignee: 'bot-7', labels: ['vip', 'billing'] });
    expect((await call(`/v1/conversations/${c.id}`, { token, method: 'PATCH', body: { status: 'done' } })).status).toBe(
      400,
    );

    const events = await waitFor(
      async () => {
        const status = await eventsOf<Json>(clients, platform.infra.topology, 'conversation.status_changed');
        const assigned = await eventsOf<Json>(clients, platform.infra.topology, 'conversation.assigned');
        return status.some((e) => e.data.status === 'closed') && assigned.some((e) => e.data.assignee === 'bot-7')
          ? { status, assigned }
          : false;
      },
      20_000,
      'conversation events',
      200,
    );
    expect(events.status.map((e) => e.data.status)).toContain('closed');
    expect(events.assigned.map((e) => e.data.assignee)).toEqual(expect.arrayContaining(['bot-7']));

    const byLabel = await call('/v1/conversations?label=billing&status=closed', { token });
    expect(byLabel.body.data.map((x: Json) => x.id)).toEqual([c.id]);
    const unread = await call('/v1/conversations?unread=true&channel=max', { token });
    expect(unread.body.data.map((x: Json) => x.id)).toContain(c.id);
    const read = await call(`/v1/conversations/${c.id}/read`, { token, method: 'POST' });
    expect(read.status).toBe(200);
    expect(read.body.unread_count).toBe(0);

    const page = await call('/v1/conversations?limit=1', { token });
    expect(page.body.data).toHaveLength(1);
    const next = await call(`/v1/conversations?limit=1&cursor=${page.body.next_cursor}`, { token });
    expect(next.body.data[0].id).not.toBe(page.body.data[0].id);
  });

  it('marks a conversation read on the channel: WhatsApp read with typing, Telegram typing', async () => {
    const wa = await conversationOf('whatsapp', '79990007003');
    const [inbound] = ((await messagesOf(wa.id)).data as Json[]).filter((m) => m.direction === 'in');
    const read = await call(`/v1/conversations/${wa.id}/read`, { token, method: 'POST' });
    expect(read.body.unread_count).toBe(0);
    const markers = (await sandbox(`whatsapp/read_markers?phone_number_id=${app.phoneNumberId}`)) as Json[];
    expect(markers).toContainEqual({
      phone_number_id: app.phoneNumberId,
      message_id: inbound.provider_message_id,
      typing: 'text',
    });

    const tg = await conversationOf('telegram', '7001');
    expect((await call(`/v1/conversations/${tg.id}/read`, { token, method: 'POST' })).body.unread_count).toBe(0);
    const typing = (await sandbox(`telegram/calls?method=sendChatAction&bot_id=${bots.telegram.id}`)) as Json[];
    expect(typing.map((c) => [String(c.params.chat_id), c.params.action])).toContainEqual(['7001', 'typing']);
  });

  it("answers 404 for another account's conversation", async () => {
    const c = await conversationOf('telegram', '7001');
    expect((await call(`/v1/conversations/${c.id}`, { token: otherToken })).status).toBe(404);
    expect((await call(`/v1/conversations/${c.id}/messages`, { token: otherToken })).status).toBe(404);
    const patch = await call(`/v1/conversations/${c.id}`, {
      token: otherToken,
      method: 'PATCH',
      body: { status: 'closed' },
    });
    expect(patch.status).toBe(404);
    expect(patch.body.type).toMatch(/\/problems\/not-found$/);
    expect((await call('/v1/conversations/not-an-id', { token })).status).toBe(404);
  });
});
