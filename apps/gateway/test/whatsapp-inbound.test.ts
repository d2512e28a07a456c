import { DeliveryStateStore, NatsClients } from '@app/messaging';
import {
  MessageReactionData,
  MessageReceivedData,
  MessageStatusData,
  newMessageId,
  TemplateStatusData,
  TemplateUpdatedData,
} from '@app/contracts';
import { hubSignature, WebhookInboundMessage, WebhookStatus, WhatsAppWebhookPayload } from '@app/channels';
import { Platform, startPlatform } from '../../../test/support/platform';
import {
  APP_SECRET,
  eventsEventually,
  eventsOf,
  messagesPayload,
  postWebhook,
  readEvents,
  statusesPayload,
} from './support/whatsapp';

describe('gateway WhatsApp inbound endpoint', () => {
  let platform: Platform;
  let clients: NatsClients;
  const url = () => platform.urls.gateway;
  const events = () => readEvents(clients, platform.infra.topology);

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'wa-inbound',
      // The api answers whose connection it is; none of these test connections belongs to an app.
      services: ['api', 'gateway'],
      env: { WHATSAPP_VERIFY_TOKEN: 'verify-me-please' },
    });
    clients = await NatsClients.connect({ url: platform.infra.natsUrl, name: 'wa-inbound-test' });
  });

  afterAll(async () => {
    await clients?.drain();
    await platform?.stop();
  });

  describe('verification challenge', () => {
    const verify = (q: string) => fetch(`${url()}/v1/inbound/whatsapp?${q}`);

    it('echoes hub.challenge as text when the verify token matches', async () => {
      const res = await verify('hub.mode=subscribe&hub.verify_token=verify-me-please&hub.challenge=1158201444');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(await res.text()).toBe('1158201444');
    });

    it('refuses a wrong verify token or mode with a 403 problem', async () => {
      for (const q of [
        'hub.mode=subscribe&hub.verify_token=wrong-token&hub.challenge=1',
        'hub.mode=unsubscribe&hub.verify_token=verify-me-please&hub.challenge=1',
        'hub.mode=subscribe&hub.challenge=1',
      ]) {
        const res = await verify(q);
        expect(res.status).toBe(403);
        expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(await res.text()).not.toContain('1158201444');
      }
    });

    it('answers 400 without a challenge', async () => {
      expect((await verify('hub.mode=subscribe&hub.verify_token=verify-me-please')).status).toBe(400);
    });
  });

  describe('signature', () => {
    const raw = JSON.stringify(
      statusesPayload('2000001', '1000001', [
        { id: 'wamid.SIG1', status: 'delivered', timestamp: '1763700000', recipient_id: '79990001122' },
      ]),
    );

    it.each([
      ['missing', null],
      ['made with another secret', hubSignature('another-secret', raw)],
      ['malformed', 'sha256=zz'],
      ['made over other bytes', hubSignature(APP_SECRET, raw + ' ')],
    ])('a signature %s gets 401 and publishes nothing', async (_what, signature) => {
      const before = (await events()).length;
      const res = await postWebhook(url(), raw, signature);
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ status: 401, type: '/problems/invalid-signature' });
      expect((await events()).length).toBe(before);
    });

    it('is checked over the bytes as sent, whitespace included', async () => {
      const pretty = JSON.stringify(JSON.parse(raw), null, 2);
      const res = await postWebhook(url(), pretty, hubSignature(APP_SECRET, pretty));
      expect(res.status).toBe(200);
      // The compact form's signature does not fit the pretty bytes, though the JSON is the same.
      expect((await postWebhook(url(), pretty, hubSignature(APP_SECRET, raw))).status).toBe(401);
    });

    it('still answers malformed JSON with a 400 problem', async () => {
      const res = await postWebhook(url(), '{"object":', hubSignature(APP_SECRET, '{"object":'));
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    });
  });

  it('turns statuses into message events carrying the provider id and connection', async () => {
    const ours = newMessageId();
    const payload = statusesPayload('2000001', '1000001', [
      {
        id: 'wamid.ST1',
        status: 'sent',
        timestamp: '1763700001',
        recipient_id: '79990001122',
        biz_opaque_callback_data: ours,
        pricing: { billable: true, pricing_model: 'PMP', category: 'marketing' },
      },
      {
        id: 'wamid.ST1',
        status: 'delivered',
        timestamp: '1763700002',
        recipient_id: '79990001122',
        biz_opaque_callback_data: ours,
        pricing: { billable: false, pricing_model: 'PMP', category: 'utility', type: 'free_customer_service' },
      },
      {
        id: 'wamid.ST1',
        status: 'read',
        timestamp: '1763700003',
        recipient_id: '79990001122',
        biz_opaque_callback_data: ours,
      },
      {
        id: 'wamid.ST2',
        status: 'failed',
        timestamp: '1763700004',
        recipient_id: '79990000000',
        errors: [
          { code: 131026, title: 'Message undeliverable', error_data: { details: 'Recipient cannot be reached' } },
        ],
      },
    ]);
    const res = await postWebhook(url(), JSON.stringify(payload));
    expect(res.status).toBe(200);

    const byProvider = (id: string) => (d: MessageStatusData) => d.provider_message_id === id;
    const t = platform.infra.topology;
    const [sent] = await eventsOf<MessageStatusData>(clients, t, 'message.sent', byProvider('wamid.ST1'));
    expect(sent).toMatchObject({
      id: expect.stringMatching(/^evt_[0-9a-f]{32}$/),
      channel: 'whatsapp',
      app_id: null,
      user_id: null,
      data: {
        message_id: ours,
        provider_message_id: 'wamid.ST1',
        connection_id: '1000001',
        waba_id: '2000001',
        recipient: '79990001122',
        status: 'SENT',
        category: 'MARKETING',
        timestamp: 1763700001,
      },
    });
    const delivered = await eventsOf<MessageStatusData>(clients, t, 'message.delivered', byProvider('wamid.ST1'));
    expect(delivered).toHaveLength(1);
    // What the channel billed goes with the status, for the api to charge it.
    expect(delivered[0].data.pricing).toMatchObject({ category: 'UTILITY', type: 'free_customer_service' });
    expect(
      (await eventsOf<MessageStatusData>(clients, t, 'message.read', byProvider('wamid.ST1')))[0].data.status,
    ).toBe('READ');
    const [failed] = await eventsOf<MessageStatusData>(clients, t, 'message.failed', byProvider('wamid.ST2'));
    expect(failed.data).toMatchObject({
      // No id of ours came back: the provider id stands in, the api maps it.
      message_id: 'wamid.ST2',
      status: 'FAILED',
      error: { code: '131026', title: 'Recipient cannot be reached', retryable: false },
    });

    // The delivery workers learn that the channel has our message.
    const store = await DeliveryStateStore.open(clients.js, t);
    expect((await store.read(ours)).state).toEqual({ status: 'observed', providerMessageId: 'wamid.ST1' });
  });

  it('publishes a callback delivered twice only once', async () => {
    const raw = JSON.stringify(
      statusesPayload('2000001', '1000001', [
        { id: 'wamid.DUP', status: 'delivered', timestamp: '1763700010', recipient_id: '79990001122' },
      ]),
    );
    expect((await postWebhook(url(), raw)).status).toBe(200);
    expect((await postWebhook(url(), raw)).status).toBe(200);
    const t = platform.infra.topology;
    const delivered = await eventsOf<MessageStatusData>(
      clients,
      t,
      'message.delivered',
      (d) => d.provider_message_id === 'wamid.DUP',
    );
    expect(delivered).toHaveLength(1);
  });

  it('turns inbound messages and reactions into received and reaction events', async () => {
    const payload: WhatsAppWebhookPayload = {
      object: 'whatsapp_business_account',
      entry: [
        {
          id: '2000001',
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                metadata: { display_phone_number: '15550001111', phone_number_id: '1000001' },
                contacts: [{ profile: { name: 'Anna' }, wa_id: '79990001122' }],
                messages: [
                  {
                    from: '79990001122',
                    id: 'wamid.IN1',
                    timestamp: '1763700020',
                    type: 'text',
                    text: { body: 'Hello there' },
                  },
                  {
                    from: '79990001122',
                    id: 'wamid.IN2',
                    timestamp: '1763700021',
                    type: 'reaction',
                    reaction: { message_id: 'wamid.ST1', emoji: '👍' },
                  },
                ],
              },
            },
          ],
        },
      ],
    };
    expect((await postWebhook(url(), JSON.stringify(payload))).status).toBe(200);
    const t = platform.infra.topology;
    const [received, reacted] = await eventsOf<MessageReceivedData>(clients, t, 'message.received');
    expect(received.data).toEqual({
      connection_id: '1000001',
      waba_id: '2000001',
      from: '79990001122',
      profile_name: 'Anna',
      provider_message_id: 'wamid.IN1',
      type: 'text',
      text: 'Hello there',
      content: { type: 'text', text: 'Hello there' },
      sender: { phone: '79990001122', user_id: null, username: null, previous_user_id: null },
      context_provider_message_id: null,
      timestamp: 1763700020,
    });
    // A reaction is a received message too (for conversations), besides message.reaction.
    expect(reacted.data.content).toEqual({
      type: 'reaction',
      text: null,
      reaction: { emoji: '👍', target_provider_message_id: 'wamid.ST1' },
    });
    const [reaction] = await eventsOf<MessageReactionData>(clients, t, 'message.reaction');
    expect(reaction.data).toMatchObject({
      connection_id: '1000001',
      from: '79990001122',
      provider_message_id: 'wamid.ST1',
      emoji: '👍',
    });
  });

  it('turns a template status update into template.status_changed with the WABA', async () => {
    const payload: WhatsAppWebhookPayload = {
      object: 'whatsapp_business_account',
      entry: [
        {
          id: '2000002',
          time: 1763700030,
          changes: [
            {
              field: 'message_template_status_update',
              value: {
                event: 'REJECTED',
                message_template_id: 1689556908129832,
                message_template_name: 'order_update',
                message_template_language: 'en',
                reason: 'INVALID_FORMAT',
                rejection_info: { reason: 'Variables are not allowed at the start', recommendation: 'Move them' },
              },
            },
          ],
        },
      ],
    };
    const raw = JSON.stringify(payload);
    expect((await postWebhook(url(), raw)).status).toBe(200);
    expect((await postWebhook(url(), raw)).status).toBe(200);
    const changed = await eventsOf<TemplateStatusData>(clients, platform.infra.topology, 'template.status_changed');
    expect(changed).toHaveLength(1);
    expect(changed[0]).toMatchObject({ channel: 'whatsapp', app_id: null });
    expect(changed[0].data).toEqual({
      waba_id: '2000002',
      wa_id: '1689556908129832',
      name: 'order_update',
      language: 'en',
      status: 'REJECTED',
      previous_status: null,
      quality: null,
      reason: { code: 'INVALID_FORMAT', message: 'Variables are not allowed at the start' },
    });
  });

  it('turns a template category change into template.updated with the WABA, once', async () => {
    const payload: WhatsAppWebhookPayload = {
      object: 'whatsapp_business_account',
      entry: [
        {
          id: '2000002',
          time: 1763700040,
          changes: [
            {
              field: 'template_category_update',
              value: {
                message_template_id: 1689556908129833,
                message_template_name: 'order_update',
                message_template_language: 'en',
                previous_category: 'UTILITY',
                new_category: 'MARKETING',
              },
            },
          ],
        },
      ],
    };
    const raw = JSON.stringify(payload);
    expect((await postWebhook(url(), raw)).status).toBe(200);
    expect((await postWebhook(url(), raw)).status).toBe(200);
    const updated = await eventsOf<TemplateUpdatedData>(clients, platform.infra.topology, 'template.updated');
    expect(updated).toHaveLength(1);
    expect(updated[0]).toMatchObject({ channel: 'whatsapp' });
    expect(updated[0].data).toEqual({
      waba_id: '2000002',
      wa_id: '1689556908129833',
      name: 'order_update',
      language: 'en',
      template_id: null,
      previous_category: 'UTILITY',
      category: 'MARKETING',
      reason: 'channel_recategorized',
    });
  });

  it("takes an aggregated callback up to Meta's 3 MB, refuses a larger one with a 413 problem", async () => {
    // Meta aggregates up to 1,000 updates per webhook: 1,000 statuses and 500 long inbound texts
    // make about 2.2 MiB.
    const statuses: WebhookStatus[] = Array.from({ length: 1_000 }, (_, i) => ({
      id: `wamid.BIG${i}`,
      status: 'delivered',
      timestamp: '1763700020',
      recipient_id: '79990001122',
    }));
    const texts = (n: number): WebhookInboundMessage[] =>
      Array.from({ length: n }, (_, i) => ({
        from: '79990001122',
        id: `wamid.BIGIN${n}-${i}`,
        timestamp: '1763700021',
        type: 'text',
        text: { body: 't'.repeat(4_000) },
      }));
    const big = JSON.stringify(messagesPayload('2000001', '1000001', { statuses, messages: texts(500) }));
    expect(big.length).toBeGreaterThan(2 * 1024 * 1024);
    const res = await postWebhook(url(), big);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ events: 1_500 });
    // The relay takes the callback's events in order; its last status reaches EVENTS too.
    const last = await eventsEventually<MessageStatusData>(
      clients,
      platform.infra.topology,
      'message.delivered',
      (d) => d.provider_message_id === 'wamid.BIG999',
    );
    expect(last).toHaveLength(1);

    const tooBig = JSON.stringify(messagesPayload('2000001', '1000001', { statuses, messages: texts(800) }));
    expect(tooBig.length).toBeGreaterThan(3 * 1024 * 1024);
    const refused = await postWebhook(url(), tooBig);
    expect(refused.status).toBe(413);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  it('keeps the 1 MiB limit on other routes', async () => {
    const res = await fetch(`${url()}/v1/inbound/telegram/whatever`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ blob: 'x'.repeat(1024 * 1024) }),
    });
    expect(res.status).toBe(413);
  });

  it('accepts a signed callback it does not understand without publishing', async () => {
    const before = (await events()).length;
    const raw = JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [{ id: '2', changes: [{ field: 'account_update', value: { event: 'X' } }] }],
    });
    const res = await postWebhook(url(), raw);
    expect(res.status).toBe(200);
    expect((await events()).length).toBe(before);
  });
});
