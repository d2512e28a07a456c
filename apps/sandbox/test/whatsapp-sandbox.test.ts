import {
  EventEnvelope,
  MessageReceivedData,
  MessageStatusData,
  newMessageId,
  OutboundContent,
  OutboundMessage,
} from '@app/contracts';
import { toGraphMessage, WhatsAppConnector } from '@app/channels';
import { NatsClients } from '@app/messaging';
import { eventsEventually, eventsOf, readEvents, waitFor } from '@app/testing';
import { Platform, startPlatform } from '../../../test/support/platform';

const PHONE_NUMBER_ID = '1000001';
const WABA_ID = '2000001';
const STATUS_DELAY_MS = 40;

interface RecordedSend {
  seq: number;
  body: Record<string, unknown>;
  wamid: string | null;
  outcome: string;
  http_status: number;
}

describe('WhatsApp sandbox with the connector and the gateway', () => {
  let platform: Platform;
  let clients: NatsClients;
  let connector: WhatsAppConnector;
  const sandbox = (path: string, init?: RequestInit) => fetch(`${platform.urls.sandbox}${path}`, init);
  const control = (path: string, body?: unknown, method = 'POST') =>
    sandbox(`/_sandbox/whatsapp/${path}`, {
      method,
      ...(body !== undefined ? { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) } : {}),
    });
  const sends = async (query = ''): Promise<RecordedSend[]> =>
    (await sandbox(`/_sandbox/whatsapp/messages${query}`)).json() as Promise<RecordedSend[]>;

  function message(
    kind: OutboundMessage['kind'],
    content: OutboundContent,
    recipient = '79990001122',
  ): OutboundMessage {
    return {
      id: newMessageId(),
      channel: 'whatsapp',
      priority: 'service',
      category: null,
      user_id: 'u1',
      app_id: 1,
      sender: { connection_id: PHONE_NUMBER_ID, waba_id: WABA_ID },
      recipient,
      kind,
      content,
      queued_at: Date.now(),
    };
  }

  /** Status events of one of our messages, in stream order. */
  async function statusesOf(id: string): Promise<EventEnvelope<MessageStatusData>[]> {
    return (
      (await readEvents(clients, platform.infra.topology)) as unknown as EventEnvelope<MessageStatusData>[]
    ).filter((e) => e.type.startsWith('message.') && e.data.message_id === id);
  }

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'wa-sandbox',
      services: ['api', 'gateway', 'sandbox'],
      env: { SANDBOX_STATUS_DELAY_MS: String(STATUS_DELAY_MS), SANDBOX_MODERATION_DELAY_MS: '100' },
    });
    clients = await NatsClients.connect({ url: platform.infra.natsUrl, name: 'wa-sandbox-test' });
    connector = new WhatsAppConnector({
      graphUrl: platform.urls.sandbox,
      accessToken: 'sandbox-access-token',
      timeoutMs: 3000,
    });
    const reg = await control('phone_numbers', { phone_number_id: PHONE_NUMBER_ID, waba_id: WABA_ID });
    expect(reg.status).toBe(201);
  });

  afterEach(async () => {
    await control('faults', undefined, 'DELETE');
  });

  afterAll(async () => {
    await clients?.drain();
    await platform?.stop();
  });

  describe('Graph API surface', () => {
    it('refuses a request without the access token with a Graph 401', async () => {
      const res = await sandbox(`/v21.0/${PHONE_NUMBER_ID}/messages`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: 'Bearer nope' },
        body: JSON.stringify({ messaging_product: 'whatsapp', to: '79990001122', type: 'text', text: { body: 'x' } }),
      });
      expect(res.status).toBe(401);
      const body = await res.json();
      expect(body).toMatchObject({ error: { code: 190, type: 'OAuthException', fbtrace_id: expect.any(String) } });
    });

    it.each([
      [{ to: '79990001122', type: 'text', text: { body: 'x' } }, 100],
      [{ messaging_product: 'whatsapp', type: 'text', text: { body: 'x' } }, 131008],
      [{ messaging_product: 'whatsapp', to: '79990001122', type: 'text', text: {} }, 131008],
      [{ messaging_product: 'whatsapp', to: '79990001122', type: 'image', image: { link: 'not a url' } }, 131009],
      [{ messaging_product: 'whatsapp', to: '79990001122', type: 'template', template: { name: 'x' } }, 131008],
    ])('answers a bad body %j with a Graph 400 (code %i) and records no accepted send', async (body, code) => {
      const before = (await sends()).length;
      const res = await sandbox(`/v21.0/${PHONE_NUMBER_ID}/messages?access_token=sandbox-access-token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({
        error: { code, message: expect.any(String), fbtrace_id: expect.any(String) },
      });
      expect((await sends()).length).toBe(before);
    });

    it('shows the registered number', async () => {
      const res = await sandbox(`/v21.0/${WABA_ID}/phone_numbers`, {
        headers: { Authorization: 'Bearer sandbox-access-token' },
      });
      expect(((await res.json()) as { data: unknown[] }).data).toEqual([
        expect.objectContaining({ id: PHONE_NUMBER_ID }),
      ]);
    });
  });

  it('accepts every kind from the connector, records the exact Graph body once each', async () => {
    await control('messages', undefined, 'DELETE');
    const kinds: OutboundMessage[] = [
      message('TEXT', { text: { body: 'Hello' } }),
      message('IMAGE', { image: { url: 'https://cdn.example.com/a.png', caption: 'A' } }),
      message('VIDEO', { video: { url: 'https://cdn.example.com/a.mp4' } }),
      message('DOCUMENT', { document: { url: 'https://cdn.example.com/a.pdf', caption: 'Invoice' } }),
      message('AUDIO', { audio: { url: 'https://cdn.example.com/a.ogg', is_voice: true } }),
      message('REACTION', { reaction: { emoji: '👍', message_id: 'x', provider_message_id: 'wamid.ORIGINAL' } }),
      message('TEMPLATE', {
        template: {
          name: 'not_stored_here',
          language: 'en',
          media: { type: 'IMAGE', url: 'https://cdn.example.com/h.png' },
          body_values: ['Anna', '42'],
          buttons: [{ index: 0, type: 'URL', values: ['42'] }],
        },
      }),
    ];
    const results = [];
    for (const m of kinds) results.push(await connector.send(m));
    for (const r of results) expect(r).toEqual({ ok: true, provider_message_id: expect.stringMatching(/^wamid\./) });

    const recorded = await sends();
    expect(recorded.map((s) => s.body)).toEqual(kinds.map((m) => toGraphMessage(m)));
    expect(recorded.map((s) => s.wamid)).toEqual(results.map((r) => (r.ok ? r.provider_message_id : null)));
    expect(new Set(recorded.map((s) => s.wamid)).size).toBe(kinds.length);
  });

  it('calls the gateway back: sent, delivered and read arrive as events for our message', async () => {
    const m = message('TEXT', { text: { body: 'status please' } });
    const r = await connector.send(m);
    expect(r.ok).toBe(true);
    const events = await waitFor(
      async () => {
        const e = await statusesOf(m.id);
        return e.length >= 3 && e;
      },
      10_000,
      'three status events',
    );
    expect(events.map((e) => e.type)).toEqual(['message.sent', 'message.delivered', 'message.read']);
    expect(events[0].data).toMatchObject({
      message_id: m.id,
      provider_message_id: r.ok ? r.provider_message_id : '',
      connection_id: PHONE_NUMBER_ID,
      waba_id: WABA_ID,
      recipient: '79990001122',
    });
  });

  it('a recipient ending in 2222 is read before it is delivered', async () => {
    const m = message('TEXT', { text: { body: 'out of order' } }, '79990002222');
    expect((await connector.send(m)).ok).toBe(true);
    const events = await waitFor(
      async () => {
        const e = await statusesOf(m.id);
        return e.length >= 3 && e;
      },
      10_000,
      'three status events',
    );
    expect(events.map((e) => e.type)).toEqual(['message.sent', 'message.read', 'message.delivered']);
  });

  it('a recipient ending in 1111 is delivered and never read', async () => {
    const m = message('TEXT', { text: { body: 'unread' } }, '79990001111');
    expect((await connector.send(m)).ok).toBe(true);
    await waitFor(
      async () => (await statusesOf(m.id)).some((e) => e.type === 'message.delivered'),
      10_000,
      'delivered',
    );
    await new Promise((r) => setTimeout(r, STATUS_DELAY_MS * 5));
    expect((await statusesOf(m.id)).map((e) => e.type)).toEqual(['message.sent', 'message.delivered']);
  });

  it('a recipient ending in 0000 fails after sent with 131026', async () => {
    const m = message('TEXT', { text: { body: 'nobody there' } }, '79990000000');
    expect((await connector.send(m)).ok).toBe(true);
    const events = await waitFor(
      async () => {
        const e = await statusesOf(m.id);
        return e.some((x) => x.type === 'message.failed') && e;
      },
      10_000,
      'failed',
    );
    expect(events.map((e) => e.type)).toEqual(['message.sent', 'message.failed']);
    expect(events[1].data.error).toMatchObject({ code: '131026', retryable: false });
  });

  it('a recipient ending in 3333 is refused at once with a final 131026', async () => {
    const result = await connector.send(message('TEXT', { text: { body: 'x' } }, '79990003333'));
    expect(result).toMatchObject({ ok: false, retryable: false, code: '131026' });
  });

  describe('fault injection', () => {
    it('429 for the next send: retryable with the Retry-After, then sends resume', async () => {
      expect((await control('faults', { mode: '429', count: 1, retry_after_seconds: 2 })).status).toBe(201);
      const m = message('TEXT', { text: { body: 'busy' } });
      expect(await connector.send(m)).toEqual({
        ok: false,
        retryable: true,
        scope: 'sender',
        code: '130429',
        title: expect.any(String),
        retryAfterMs: 2000,
      });
      const again = await connector.send(m);
      expect(again.ok).toBe(true);
      // The refused attempt reached the channel but was not accepted: exactly one accepted send.
      const mine = (await sends('?include=all')).filter((s) => s.body.biz_opaque_callback_data === m.id);
      expect(mine.map((s) => [s.outcome, s.http_status])).toEqual([
        ['fault', 429],
        ['accepted', 200],
      ]);
    });

    it('500 until cleared: retryable every time', async () => {
      await control('faults', { mode: '500' });
      for (let i = 0; i < 2; i++) {
        expect(await connector.send(message('TEXT', { text: { body: 'down' } }))).toMatchObject({
          ok: false,
          retryable: true,
          code: '131000',
        });
      }
      await control('faults', undefined, 'DELETE');
      expect((await connector.send(message('TEXT', { text: { body: 'up' } }))).ok).toBe(true);
    });

    it('hang: the connector gives up after its timeout and reports it retryable', async () => {
      await control('faults', { mode: 'hang', count: 1 });
      const quick = new WhatsAppConnector({
        graphUrl: platform.urls.sandbox,
        accessToken: 'sandbox-access-token',
        timeoutMs: 300,
      });
      const started = Date.now();
      const m = message('TEXT', { text: { body: 'anyone?' } });
      expect(await quick.send(m)).toMatchObject({ ok: false, retryable: true, code: 'timeout' });
      expect(Date.now() - started).toBeLessThan(3000);
      expect((await sends()).some((s) => s.body.biz_opaque_callback_data === m.id)).toBe(false);
    });

    it('refuses an unknown fault mode with a problem', async () => {
      const res = await control('faults', { mode: 'explode' });
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/problem\+json/);
    });
  });

  it('emulates an inbound message, which reaches the gateway as message.received', async () => {
    const res = await control('inbound', {
      phone_number_id: PHONE_NUMBER_ID,
      from: '79995556677',
      text: 'I need help',
    });
    expect(res.status).toBe(201);
    const { id, webhook } = (await res.json()) as { id: string; webhook: { delivered: boolean; status: number } };
    expect(webhook).toEqual({ delivered: true, status: 200 });
    const [received] = await eventsOf<MessageReceivedData>(
      clients,
      platform.infra.topology,
      'message.received',
      (d) => d.provider_message_id === id,
    );
    expect(received?.data).toMatchObject({
      connection_id: PHONE_NUMBER_ID,
      waba_id: WABA_ID,
      from: '79995556677',
      text: 'I need help',
    });

    const reaction = await control('inbound', {
      phone_number_id: PHONE_NUMBER_ID,
      from: '79995556677',
      reaction: { message_id: 'wamid.SOMETHING', emoji: '❤️' },
    });
    expect(reaction.status).toBe(201);
    const reactions = await eventsOf(clients, platform.infra.topology, 'message.reaction', (d) => d.emoji === '❤️');
    expect(reactions.map((e) => e.data)).toContainEqual(
      expect.objectContaining({ provider_message_id: 'wamid.SOMETHING', emoji: '❤️', from: '79995556677' }),
    );
  });

  describe('pricing in status callbacks and template re-categorisation', () => {
    const deliveredOf = async (id: string) =>
      (
        await waitFor(
          async () => (await statusesOf(id)).find((e) => e.type === 'message.delivered'),
          10_000,
          'delivered',
        )
      ).data;

    it('statuses say what the channel bills: a utility template in the open window is free, a chosen category is billed', async () => {
      const template = { name: 'parcel_update', language: 'en', category: 'UTILITY' as const, type: 'TEXT' as const };
      const submitted = await connector.submitTemplate(
        { waba_id: WABA_ID, phone_number_id: PHONE_NUMBER_ID },
        { ...template, body: { text: 'Parcel {{1}} is on its way', example: 'A-1' } },
      );
      await waitFor(
        async () =>
          ((await (await control('templates', undefined, 'GET')).json()) as { id: string; status: string }[]).some(
            (t) => t.id === submitted.wa_id && t.status === 'APPROVED',
          ),
        10_000,
        'template approved',
      );
      const send = async (to: string) => {
        const m = message(
          'TEMPLATE',
          { template: { name: 'parcel_update', language: 'en', body_values: ['A-1'] } },
          to,
        );
        expect((await connector.send(m)).ok).toBe(true);
        return deliveredOf(m.id);
      };
      // Outside any window: billed as utility.
      expect((await send('79990006001')).pricing).toMatchObject({
        category: 'UTILITY',
        type: 'regular',
        billable: true,
      });
      // The recipient writes: the window opens and the utility template is free.
      await control('inbound', { phone_number_id: PHONE_NUMBER_ID, from: '79990006002', text: 'Where is it?' });
      expect((await send('79990006002')).pricing).toEqual({
        category: 'UTILITY',
        channel_category: 'utility',
        type: 'free_customer_service',
        billable: false,
        pricing_model: 'PMP',
      });
      // A test chooses what a recipient is billed, or that their statuses carry no pricing.
      expect((await control('pricing', { to: '79990006003', category: 'marketing_lite' })).status).toBe(200);
      expect((await send('79990006003')).pricing).toMatchObject({ category: 'MARKETING_LITE', type: 'regular' });
      expect((await control('pricing', { to: '79990006004', omit: true })).status).toBe(200);
      expect((await send('79990006004')).pricing).toBeNull();
      expect((await control('pricing', { to: '79990006005', type: 'gift' })).status).toBe(400);

      // The channel moves the template to MARKETING: the webhook says so, Graph lists it, sends are billed so.
      const moved = await control(`templates/${submitted.wa_id}/category`, { category: 'MARKETING' });
      expect(moved.status).toBe(200);
      expect(((await moved.json()) as { webhook: unknown }).webhook).toEqual({ delivered: true, status: 200 });
      const [updated] = await eventsEventually(
        clients,
        platform.infra.topology,
        'template.updated',
        (d) => d.wa_id === submitted.wa_id,
      );
      expect(updated.data).toMatchObject({
        previous_category: 'UTILITY',
        category: 'MARKETING',
        name: 'parcel_update',
      });
      const listed = await connector.listTemplates({ waba_id: WABA_ID, phone_number_id: PHONE_NUMBER_ID });
      expect(listed.find((t) => t.wa_id === submitted.wa_id)?.category).toBe('MARKETING');
      expect((await send('79990006002')).pricing).toMatchObject({ category: 'MARKETING', type: 'regular' });
      expect((await control('templates/999/category', { category: 'MARKETING' })).status).toBe(404);
    });
  });
});
