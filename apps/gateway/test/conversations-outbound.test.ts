import { waitFor } from '@app/testing';
import { gatewayAccount, GatewayCall, gatewayClient } from '../../../test/support/campaigns';
import { ApiFactory } from '../../../test/support/factories';
import { Platform, startPlatform } from '../../../test/support/platform';
import { registerSandboxNumber, sandboxControl } from '../../../test/support/sandbox';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * What the account sends, as its threads show it: the content of every send the gateway accepts,
 * its status moving forward to the end, a failover step in the thread of the channel that carried
 * it; no conversation seen before its first message; the WhatsApp window shown exactly as the send
 * check decides it; MAX shown typing while a conversation is read.
 */
describe('conversations: outbound content, statuses, windows and read markers', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let app: Awaited<ReturnType<ApiFactory['activeApp']>>;
  let call: GatewayCall;
  const bots: Record<'telegram' | 'max', { id: number; token: string }> = {} as never;

  const send = (message: Json) => call('POST', '/v1/messages', message);
  const sandbox = async (path: string, body?: unknown) =>
    (await sandboxControl<Json>(platform.urls.sandbox, path, body)).body;
  const contact = async (name: string, identities: Record<string, string>) => {
    const res = await call('POST', '/v1/contacts', { name, identities });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const conversationWith = (channel: string, address: string) =>
    waitFor(
      async () => {
        const res = await call('GET', `/v1/conversations?channel=${channel}&limit=100`);
        return (res.body.data as Json[]).find((c) => c.contact.address === address) ?? false;
      },
      20_000,
      `the ${channel} conversation with ${address}`,
      100,
    );
  const messagesOf = async (id: string) =>
    (await call('GET', `/v1/conversations/${id}/messages?limit=100`)).body.data as Json[];
  /** The thread's outbound message `messageId` once `done` holds for it. */
  const outbound = (conversationId: string, done: (m: Json) => boolean, what: string) =>
    waitFor(
      async () => (await messagesOf(conversationId)).find((m) => m.direction === 'out' && done(m)) ?? false,
      30_000,
      what,
      100,
    );

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'gw-conversations-outbound',
      services: ['api', 'gateway', 'queue', 'sandbox'],
      env: {
        SANDBOX_STATUS_DELAY_MS: '50',
        CHANNEL_MESSAGE_PRICES: JSON.stringify({
          telegram: { MARKETING: 0, MARKETING_LITE: 0, UTILITY: 0, SERVICE: 0, AUTHENTICATION: 0 },
          max: { MARKETING: 0, MARKETING_LITE: 0, UTILITY: 0, SERVICE: 0, AUTHENTICATION: 0 },
        }),
      },
    });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    const user = await factory.user('system', { balance: 10 });
    app = await factory.activeApp(user.userId, { message_limit: 'TIER_250' });
    await registerSandboxNumber(platform.urls.sandbox, app);
    await factory.sendableTemplate(app.id, { name: 'order_ready', category: 'UTILITY', body: 'Hi {{1}}, ready.' });
    call = gatewayClient(platform.urls.gateway, await gatewayAccount(platform.infra.databaseUrl, 'shop', user.userId));
    expect((await call('POST', '/v1/connections', { channel: 'whatsapp', app_id: app.id })).status).toBe(201);
    for (const channel of ['telegram', 'max'] as const) {
      bots[channel] = (await sandbox(`${channel}/bots`, {})) as { id: number; token: string };
      expect((await call('POST', '/v1/connections', { channel, bot_token: bots[channel].token })).status).toBe(201);
    }
    // The same template name on the bots, for a failover route.
    const bot = await call('POST', '/v1/templates', {
      name: 'order_ready',
      language: 'en',
      content: { type: 'text', text: 'Bot: {{1}}, ready.' },
    });
    expect(bot.status).toBe(201);
  });

  afterAll(async () => {
    await factory?.close();
    await platform?.stop();
  });

  it('shows what was sent, then moves its status to the end', async () => {
    const ivan = await contact('Ivan', { whatsapp: '+79990008010' });
    const sent = await send({ channel: 'whatsapp', to: '+79990008010', template: 'order_ready', params: ['Ivan'] });
    expect(sent.status).toBe(202);
    // In the thread: the template as named, with its params.
    const c = await conversationWith('whatsapp', '79990008010');
    expect(c.contact.id).toBe(ivan);
    const template = {
      type: 'template',
      text: null,
      template: { name: 'order_ready', language: null, params: ['Ivan'] },
    };
    const shown = await outbound(c.id, (m) => m.content.type === 'template', 'the template in its thread');
    expect(shown).toMatchObject({ message_id: sent.body.id, content: template });
    const read = await outbound(c.id, (m) => m.status === 'READ', 'the template read');
    expect(read).toMatchObject({ message_id: sent.body.id, content: template });
    expect((await messagesOf(c.id)).filter((m) => m.direction === 'out')).toHaveLength(1);

    // A content send, as sent, with what the channel was asked to send.
    const olga = await contact('Olga', { telegram: '818181' });
    const text = await send({
      channel: 'telegram',
      to: '818181',
      content: { type: 'text', text: 'Your order shipped' },
    });
    expect(text.status).toBe(202);
    const t = await conversationWith('telegram', '818181');
    expect(t.contact.id).toBe(olga);
    const sentOnTelegram = await outbound(t.id, (m) => m.status === 'SENT', 'the text sent on Telegram');
    expect(sentOnTelegram).toMatchObject({
      message_id: text.body.id,
      content: { type: 'text', text: 'Your order shipped', rendered_as: 'text' },
    });
  });

  it('ends a failed send FAILED, and shows a failover step in the thread of the channel that carried it', async () => {
    const petr = await contact('Petr', { whatsapp: '79990080000' });
    const failed = await send({ contact: petr, channels: ['whatsapp'], template: 'order_ready', params: ['Petr'] });
    expect(failed.status).toBe(202);
    const p = await conversationWith('whatsapp', '79990080000');
    expect(p.contact.id).toBe(petr);
    const ended = await outbound(p.id, (m) => m.status === 'FAILED', 'the undeliverable template failed');
    expect(ended).toMatchObject({ message_id: failed.body.id, content: { type: 'template' } });

    // WhatsApp refuses the number at once: the route moves on to Telegram, whose thread shows the step.
    const ann = await contact('Ann', { whatsapp: '79990083333', telegram: '838383' });
    const routed = await send({
      contact: ann,
      channels: ['whatsapp', 'telegram'],
      template: 'order_ready',
      params: ['Ann'],
    });
    expect(routed.status).toBe(202);
    const onWhatsApp = await conversationWith('whatsapp', '79990083333');
    const first = await outbound(onWhatsApp.id, (m) => m.status === 'FAILED', 'the WhatsApp attempt failed');
    expect(first.message_id).toBe(routed.body.id);
    // Each attempt shows what was sent: the later one (a message id the api made) as well as the first.
    const template = {
      type: 'template',
      text: null,
      template: { name: 'order_ready', language: null, params: ['Ann'] },
    };
    expect(first.content).toEqual(template);
    const onTelegram = await conversationWith('telegram', '838383');
    expect(onTelegram.contact.id).toBe(ann);
    const step = await outbound(onTelegram.id, (m) => m.status === 'SENT', 'the Telegram step sent');
    expect(step.message_id).not.toBe(routed.body.id);
    expect(step.content).toEqual(template);
    expect(onTelegram.last_message).toMatchObject({ direction: 'out', content: template });

    // A content route: each attempt shows the content, as the channel it went on was asked to send it.
    const bob = await contact('Bob', { telegram: '843333', max: '8444' });
    const content = { type: 'text', text: 'Your receipt is ready' };
    const routedContent = await send({ contact: bob, channels: ['telegram', 'max'], content });
    expect(routedContent.status).toBe(202);
    const bobOnTelegram = await conversationWith('telegram', '843333');
    const refused = await outbound(bobOnTelegram.id, (m) => m.status === 'FAILED', 'the Telegram attempt failed');
    expect(refused).toMatchObject({ message_id: routedContent.body.id, content: { ...content, rendered_as: 'text' } });
    const bobOnMax = await conversationWith('max', '8444');
    const carried = await outbound(bobOnMax.id, (m) => m.status === 'SENT', 'the MAX attempt sent');
    expect(carried.message_id).not.toBe(routedContent.body.id);
    expect(carried.content).toEqual({ ...content, rendered_as: 'text' });
  });

  it("shows a campaign's messages as sent: the template with each recipient's params, or the content", async () => {
    const zoe = await contact('Zoe', { telegram: '878787' });
    const res = await call('PATCH', `/v1/contacts/${zoe}`, { lists: ['buyers'] });
    expect(res.status).toBe(200);
    const launched: string[] = [];
    for (const definition of [
      { name: 'Ready', template: 'order_ready', language: 'en', params: ['{{contact.name}}'] },
      { name: 'Hours', content: { type: 'text', text: 'Open until 9 today' } },
    ]) {
      const created = await call('POST', '/v1/campaigns', {
        ...definition,
        audience: { list: 'buyers' },
        channels: ['telegram'],
      });
      expect(created.status).toBe(201);
      expect((await call('POST', `/v1/campaigns/${created.body.id}/launch`)).status).toBe(200);
      launched.push(created.body.id as string);
    }
    const c = await conversationWith('telegram', '878787');
    expect(c.contact.id).toBe(zoe);
    const template = await outbound(c.id, (m) => m.content.type === 'template', "the campaign's template");
    expect(template.content).toEqual({
      type: 'template',
      text: null,
      template: { name: 'order_ready', language: 'en', params: ['Zoe'] },
    });
    const text = await outbound(c.id, (m) => m.content.type === 'text', "the campaign's text");
    expect(text.content).toEqual({ type: 'text', text: 'Open until 9 today', rendered_as: 'text' });
    const outs = (await messagesOf(c.id)).filter((m) => m.direction === 'out');
    expect(outs.map((m) => m.content.type).sort()).toEqual(['template', 'text']);
    expect(launched).toHaveLength(2);
  });

  it('never lists a conversation before its first message', async () => {
    const senders = Array.from({ length: 15 }, (_, i) => String(86_001 + i));
    await Promise.all(
      senders.map((from) => sandbox('telegram/inbound', { bot: bots.telegram.token, from, text: `hello ${from}` })),
    );
    const seen = new Set<string>();
    const empty: Json[] = [];
    await waitFor(
      async () => {
        const page = (await call('GET', '/v1/conversations?channel=telegram&limit=100')).body.data as Json[];
        for (const c of page) {
          if (c.last_message === null || c.last_message_at === null) empty.push(c);
          seen.add(c.contact.address as string);
        }
        return senders.every((s) => seen.has(s));
      },
      30_000,
      'every new conversation listed',
      20,
    );
    expect(empty).toEqual([]);
  });

  it('accepts a free-form WhatsApp reply exactly when the conversation says the window is open', async () => {
    const from = '79990008400';
    await sandbox('whatsapp/inbound', { phone_number_id: app.phoneNumberId, from, text: 'where is my order?' });
    const c = await conversationWith('whatsapp', from);
    const windowOf = async () => (await call('GET', `/v1/conversations/${c.id}`)).body.window as Json;
    const open = await waitFor(async () => ((await windowOf()).open ? windowOf() : false), 20_000, 'window open', 100);
    expect(open.expires_at).toBe(c.last_message.timestamp + 86_400);
    const reply = await call('POST', `/v1/conversations/${c.id}/messages`, { text: 'On its way' });
    expect(reply.status).toBe(202);

    // The customer wrote 25 hours ago: the conversation says closed, and the send check agrees.
    await factory.dataSource.query(
      `UPDATE conversation_windows SET last_inbound_at = now() - interval '25 hours' WHERE recipient = $1`,
      [from],
    );
    const closed = await windowOf();
    expect(closed.open).toBe(false);
    expect(closed.expires_at).toBeLessThan(Math.floor(Date.now() / 1000));
    const listedClosed = (await call('GET', '/v1/conversations?channel=whatsapp&limit=100')).body.data as Json[];
    expect(listedClosed.find((x) => x.id === c.id)?.window.open).toBe(false);
    const refused = await call('POST', `/v1/conversations/${c.id}/messages`, { text: 'Still there?' });
    expect(refused.status).toBe(422);
    expect(refused.body.type).toMatch(/\/problems\/window-closed$/);

    // Open again by the store: both agree again.
    await factory.dataSource.query(`UPDATE conversation_windows SET last_inbound_at = now() WHERE recipient = $1`, [
      from,
    ]);
    expect((await windowOf()).open).toBe(true);
    expect((await call('POST', `/v1/conversations/${c.id}/messages`, { text: 'Here it is' })).status).toBe(202);
  });

  it('marks a MAX conversation read in its dialog: seen, then typing', async () => {
    await sandbox('max/inbound', { bot: bots.max.token, from: '8501', text: 'hi on max' });
    const c = await conversationWith('max', '8501');
    const read = await call('POST', `/v1/conversations/${c.id}/read`);
    expect(read.status).toBe(200);
    expect(read.body.unread_count).toBe(0);
    const actions = (await sandbox(`max/calls?method=actions&bot_id=${bots.max.id}`)) as Json[];
    // The dialog's chat id (the sandbox's is the bot's id plus the user's), not the user id.
    const dialog = String(bots.max.id + 8501);
    expect(actions.map((a) => [String(a.params.chat_id), a.params.action])).toEqual([
      [dialog, 'mark_seen'],
      [dialog, 'typing_on'],
    ]);
  });
});
