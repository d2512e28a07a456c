import { DataSource } from 'typeorm';
import { createDataSource } from '@app/database';
import { Clock } from '@app/server';
import { waitFor } from '@app/testing';
import { GatewayCall, gatewayClient } from '../../../test/support/campaigns';
import { ApiFactory, TestUser } from '../../../test/support/factories';
import { Platform, startPlatform } from '../../../test/support/platform';
import { registerSandboxNumber, sandboxControl } from '../../../test/support/sandbox';
import { AccountsRepository } from '../src/accounts/accounts.repository';
import { ConversationRetention } from '../src/conversations/retention.service';
import { gatewaySchema } from '../src/database/schema';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const DAY_MS = 24 * 3600 * 1000;

/**
 * Content retention of conversations through the real services: the account's setting, and the
 * purge that removes the content of messages older than it (seen with a moved clock) while the
 * thread's metadata, the money of its sends and the consent evidence stay.
 */
describe('conversations: content retention and its purge', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let gatewayDb: DataSource;
  let user: TestUser;
  let app: Awaited<ReturnType<ApiFactory['activeApp']>>;
  let call: GatewayCall;

  const setRetention = (value: unknown) => call('PATCH', '/v1/conversations/settings', { content_retention: value });
  const customerWrites = (from: string, body: Json) =>
    sandboxControl<Json>(platform.urls.sandbox, 'whatsapp/inbound', {
      phone_number_id: app.phoneNumberId,
      from,
      ...body,
    });
  const conversationWith = (address: string) =>
    waitFor(
      async () =>
        ((await call('GET', '/v1/conversations?channel=whatsapp&limit=100')).body.data as Json[]).find(
          (c) => c.contact.address === address,
        ) ?? false,
      20_000,
      `the conversation with ${address}`,
      100,
    );
  const messagesOf = async (id: string) =>
    (await call('GET', `/v1/conversations/${id}/messages?limit=100`)).body.data as Json[];
  const waitMessages = (id: string, ok: (m: Json[]) => boolean) =>
    waitFor(async () => ((m) => (ok(m) ? m : false))(await messagesOf(id)), 20_000, `messages of ${id}`, 100);
  /** One purge pass with the clock moved `days` ahead for every gateway timer. */
  const purgeAt = async (days: number) => {
    const moved = jest.spyOn(Clock.prototype, 'nowMs').mockImplementation(() => Date.now() + days * DAY_MS);
    try {
      return await platform.apps.gateway!.get(ConversationRetention).purgeNow();
    } finally {
      moved.mockRestore();
    }
  };
  /** Rows of the gateway's tables whose text holds `needle`, by table. */
  const gatewayRowsWith = async (needle: string) => {
    const tables = (await gatewayDb.query(
      `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'gateway' AND table_type = 'BASE TABLE'`,
    )) as { name: string }[];
    const found: string[] = [];
    for (const { name } of tables) {
      const [{ n }] = (await gatewayDb.query(
        `SELECT count(*)::int AS n FROM gateway."${name}" t WHERE t::text LIKE $1`,
        [`%${needle}%`],
      )) as { n: number }[];
      if (n > 0) found.push(name);
    }
    return found;
  };

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'gw-conversation-retention',
      services: ['api', 'gateway', 'queue', 'sandbox'],
      env: { SANDBOX_STATUS_DELAY_MS: '50' },
    });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    gatewayDb = createDataSource(platform.infra.databaseUrl, gatewaySchema, 2);
    await gatewayDb.initialize();
    user = await factory.user('system', { balance: 10 });
    app = await factory.activeApp(user.userId, { message_limit: 'TIER_250' });
    await registerSandboxNumber(platform.urls.sandbox, app);
    await factory.sendableTemplate(app.id, { name: 'order_ready', category: 'UTILITY', body: 'Hi {{1}}, ready.' });
    const token = (await new AccountsRepository(gatewayDb).createAccount('shop', user.userId)).token;
    call = gatewayClient(platform.urls.gateway, token);
    expect((await call('POST', '/v1/connections', { channel: 'whatsapp', app_id: app.id })).status).toBe(201);
  });

  afterAll(async () => {
    jest.restoreAllMocks();
    await gatewayDb?.destroy();
    await factory?.close();
    await platform?.stop();
  });

  it('content_retention: 7 days by default, set in whole days from 0 to 3650; a bad value is a 400 naming it', async () => {
    expect((await call('GET', '/v1/conversations/settings')).body).toEqual({ content_retention: 7, updated_at: null });
    for (const bad of [-1, 1.5, '7', 3651, null]) {
      const res = await setRetention(bad);
      expect(res.status).toBe(400);
      expect(res.body.type).toMatch(/\/problems\//);
      expect([...new Set((res.body.errors as Json[]).map((e) => e.field))]).toEqual(['content_retention']);
    }
    const missing = await call('PATCH', '/v1/conversations/settings', {});
    expect(missing.status).toBe(400);
    expect((await call('GET', '/v1/conversations/settings')).body.content_retention).toBe(7);

    const set = await setRetention(30);
    expect(set.status).toBe(200);
    expect(set.body.content_retention).toBe(30);
    expect(Number.isInteger(set.body.updated_at)).toBe(true);
    expect((await call('GET', '/v1/conversations/settings')).body).toEqual(set.body);
  });

  it('content past the retention is purged (a moved clock); metadata, money and consent evidence stay', async () => {
    const customer = '79990009001';
    await customerWrites(customer, { text: 'my card is 4111-secret-card' });
    await customerWrites(customer, { kind: 'image', text: 'photo of my secret-passport' });
    const conversation = await conversationWith(customer);
    const sent = await call('POST', '/v1/messages', {
      channel: 'whatsapp',
      to: customer,
      template: 'order_ready',
      params: ['Ana'],
    });
    expect(sent.status).toBe(202);
    const report = await waitFor(
      async () => {
        const r = (await call('GET', `/v1/messages/${sent.body.id}`)).body;
        return ['DELIVERED', 'READ'].includes(r.status) ? r : false;
      },
      20_000,
      'the template delivered',
      100,
    );
    await customerWrites(customer, { text: 'STOP' });
    const contactId = conversation.contact.id as string;
    const consentBefore = await waitFor(
      async () => {
        const c = (await call('GET', `/v1/contacts/${contactId}/consent`)).body;
        return (c.history as Json[] | undefined)?.some((h) => h.state === 'opted_out') ? c : false;
      },
      20_000,
      'the opt-out recorded',
      100,
    );
    // The image's file is fetched into the media store meanwhile.
    const before = await waitMessages(
      conversation.id,
      (m) => m.length === 4 && m.some((x) => x.direction === 'out') && m.some((x) => x.media?.status === 'stored'),
    );
    const image = before.find((m) => m.content.type === 'image')!;
    expect(image.content.media).toBeDefined();
    expect((await fetch(image.media.url)).status).toBe(200);

    // Eight days on, a 30-day retention keeps everything (a link is signed afresh at each read).
    expect(await purgeAt(8)).toBe(0);
    const unsigned = (messages: Json[]) =>
      messages.map(({ media, ...m }) => (media ? { ...m, media: { ...media, url: null, expires_at: null } } : m));
    expect(unsigned(await messagesOf(conversation.id))).toEqual(unsigned(before));

    // At 7 days, the same eight days on purge the content of all four.
    expect((await setRetention(7)).status).toBe(200);
    expect(await purgeAt(8)).toBeGreaterThanOrEqual(4);
    const after = await messagesOf(conversation.id);
    const meta = ({ content: _c, media: _m, ...rest }: Json) => rest;
    expect(after.map(meta)).toEqual(before.map(meta));
    // The stored file is deleted with the content: no media on the message, its link answers no file.
    expect(after.find((m) => m.id === image.id)?.media).toBeUndefined();
    expect((await fetch(image.media.url)).status).not.toBe(200);
    expect(after.map((m) => m.content)).toEqual(before.map((m) => ({ type: m.content.type, text: null })));

    const thread = (await call('GET', `/v1/conversations/${conversation.id}`)).body;
    expect(thread.last_message).toMatchObject({
      id: before[3].id,
      content: { type: before[3].content.type, text: null },
    });
    expect(thread.last_message_at).toBe(before[3].timestamp);
    expect(thread.unread_count).toBe(3);
    expect(await gatewayRowsWith('secret-card')).toEqual([]);
    expect(await gatewayRowsWith('secret-passport')).toEqual([]);

    // The money of the send and the consent evidence are kept where they live.
    const reportAfter = (await call('GET', `/v1/messages/${sent.body.id}`)).body;
    expect(reportAfter).toMatchObject({ id: report.id, price: report.price, category: report.category });
    expect((await call('GET', `/v1/contacts/${contactId}/consent`)).body.history).toEqual(consentBefore.history);

    // A pass again finds nothing more to do.
    expect(await purgeAt(8)).toBe(0);
  });

  it('content_retention 0 keeps metadata only: content is purged at the next pass, without waiting', async () => {
    expect((await setRetention(0)).status).toBe(200);
    const customer = '79990009002';
    await customerWrites(customer, { text: 'zero-retention-secret' });
    const conversation = await conversationWith(customer);
    const [message] = await waitMessages(conversation.id, (m) => m.length === 1);
    expect(message.content.text).toBe('zero-retention-secret');
    expect(await platform.apps.gateway!.get(ConversationRetention).purgeNow()).toBeGreaterThanOrEqual(1);
    expect(await messagesOf(conversation.id)).toEqual([{ ...message, content: { type: 'text', text: null } }]);
    expect(await gatewayRowsWith('zero-retention-secret')).toEqual([]);
  });
});
