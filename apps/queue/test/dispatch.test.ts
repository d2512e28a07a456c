import { DeadLetteredOutbound, OutboundMessage, Topology } from '@app/contracts';
import { DeliveryStateStore, NatsClients, publishDurable } from '@app/messaging';
import { readStream, sleep, waitFor } from '@app/testing';
import { Platform, startPlatform } from '../../../test/support/platform';
import { EventsTail, nextRecipient, outbound, publishOutbound, SandboxWhatsApp } from './support/dispatch-kit';

const MAX_DELIVER = 4;
const SEND_TIMEOUT_MS = 2000;
const GRACE_MS = 1000;

describe('queue delivery to WhatsApp (sandbox)', () => {
  let platform: Platform;
  let clients: NatsClients;
  let t: Topology;
  let sandbox: SandboxWhatsApp;
  let events: EventsTail;
  let state: DeliveryStateStore;

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'queue-delivery',
      services: ['queue', 'sandbox'],
      topology: { outboundMaxDeliver: MAX_DELIVER, ackWaitMs: 5000 },
      env: {
        CHANNELS: 'whatsapp,course',
        QUEUE_WHATSAPP_RATE_PER_SENDER: '5000',
        QUEUE_WHATSAPP_RECIPIENT_INTERVAL_MS: '0',
        QUEUE_CONCURRENCY: '20',
        QUEUE_BACKOFF_BASE_MS: '200',
        QUEUE_BACKOFF_MAX_MS: '1000',
        QUEUE_UNCERTAIN_GRACE_MS: String(GRACE_MS),
        WHATSAPP_TIMEOUT_MS: String(SEND_TIMEOUT_MS),
        // Status callbacks would go to a gateway that is not running: keep them out of the way.
        SANDBOX_STATUS_DELAY_MS: '600000',
      },
    });
    t = platform.infra.topology;
    clients = await NatsClients.connect({ url: platform.infra.natsUrl, name: 'queue-delivery-test' });
    sandbox = new SandboxWhatsApp(platform.urls.sandbox);
    events = new EventsTail(clients, t);
    state = await DeliveryStateStore.open(clients.js, t);
  });

  afterAll(async () => {
    await clients?.drain();
    await platform?.stop();
  });

  afterEach(async () => {
    await sandbox.clearFault();
  });

  async function readiness() {
    const res = await fetch(`${platform.adminUrls.queue}/readyz`);
    return {
      status: res.status,
      body: (await res.json()) as {
        checks: {
          dispatch: {
            status: string;
            active_channels: string[];
            inactive_channels: string[];
            channels: Record<string, { state: string; paused_senders?: Record<string, string> }>;
          };
        };
      },
    };
  }

  it('reports the active and inactive channels and the worker state in readiness', async () => {
    const r = await waitFor(
      async () => {
        const got = await readiness();
        return got.body.checks.dispatch.channels.whatsapp?.state === 'running' && got;
      },
      10_000,
      'whatsapp worker running',
    );
    expect(r.status).toBe(200);
    expect(r.body.checks.dispatch).toMatchObject({
      status: 'up',
      active_channels: ['whatsapp'],
      inactive_channels: ['course'],
    });
    expect(r.body.checks.dispatch.channels.course).toBeUndefined();
  });

  it('sends every kind with the right Graph body and publishes message.sent with the wamid', async () => {
    const msgs: { msg: OutboundMessage; expected: Record<string, unknown> }[] = [
      {
        msg: outbound({ kind: 'TEXT', content: { text: { body: 'Your code is 1234' } } }),
        expected: { type: 'text', text: { body: 'Your code is 1234' } },
      },
      {
        msg: outbound({ kind: 'IMAGE', content: { image: { url: 'https://cdn.example.com/a.png', caption: 'A' } } }),
        expected: { type: 'image', image: { link: 'https://cdn.example.com/a.png', caption: 'A' } },
      },
      {
        msg: outbound({ kind: 'VIDEO', content: { video: { url: 'https://cdn.example.com/v.mp4' } } }),
        expected: { type: 'video', video: { link: 'https://cdn.example.com/v.mp4' } },
      },
      {
        msg: outbound({
          kind: 'DOCUMENT',
          content: { document: { url: 'https://cdn.example.com/d.pdf', caption: 'Invoice' } },
        }),
        expected: { type: 'document', document: { link: 'https://cdn.example.com/d.pdf', caption: 'Invoice' } },
      },
      {
        msg: outbound({ kind: 'AUDIO', content: { audio: { url: 'https://cdn.example.com/a.ogg', is_voice: true } } }),
        expected: { type: 'audio', audio: { link: 'https://cdn.example.com/a.ogg', voice: true } },
      },
      {
        msg: outbound({
          kind: 'REACTION',
          content: { reaction: { emoji: '👍', message_id: 'our-id', provider_message_id: 'wamid.HBgLprevious' } },
        }),
        expected: { type: 'reaction', reaction: { message_id: 'wamid.HBgLprevious', emoji: '👍' } },
      },
      {
        msg: outbound({
          kind: 'TEMPLATE',
          category: 'UTILITY',
          content: {
            template: {
              name: 'order_shipped',
              language: 'en_US',
              header_values: ['#42'],
              body_values: ['Anna', 'tomorrow'],
              buttons: [{ index: 0, type: 'URL', values: ['track/42'] }],
            },
          },
        }),
        expected: {
          type: 'template',
          template: {
            name: 'order_shipped',
            language: { code: 'en_US' },
            components: [
              { type: 'header', parameters: [{ type: 'text', text: '#42' }] },
              {
                type: 'body',
                parameters: [
                  { type: 'text', text: 'Anna' },
                  { type: 'text', text: 'tomorrow' },
                ],
              },
              { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: 'track/42' }] },
            ],
          },
        },
      },
    ];
    for (const { msg } of msgs) await publishOutbound(clients, t, msg);

    for (const { msg, expected } of msgs) {
      const sent = await events.waitFor(msg.id, 'message.sent');
      const [arrived, ...more] = await sandbox.sends({ to: msg.recipient });
      expect(more).toHaveLength(0);
      expect(arrived.phone_number_id).toBe('1000001');
      expect(arrived.body).toEqual({
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to: msg.recipient,
        // The channel echoes it in status callbacks: how the gateway ties a callback to the message.
        biz_opaque_callback_data: msg.id,
        ...expected,
      });
      expect(sent).toMatchObject({
        type: 'message.sent',
        channel: 'whatsapp',
        app_id: msg.app_id,
        user_id: msg.user_id,
        data: {
          message_id: msg.id,
          recipient: msg.recipient,
          status: 'SENT',
          provider_message_id: arrived.wamid,
          category: msg.category,
        },
      });
      expect(sent.id).toMatch(/^evt_[0-9a-f]{32}$/);
    }
  });

  it('publishes message.failed with the channel code for a final refusal, and does not retry it', async () => {
    const msg = outbound({ recipient: '79990003333' });
    await publishOutbound(clients, t, msg);
    const failed = await events.waitFor(msg.id, 'message.failed');
    expect(failed.data).toMatchObject({
      message_id: msg.id,
      status: 'FAILED',
      error: { code: '131026', retryable: false },
    });
    await sleep(1000);
    expect(await sandbox.sends({ include: 'all', to: msg.recipient })).toHaveLength(1);
    expect(events.of(msg.id, 'message.sent')).toHaveLength(0);
  });

  it('retries a send the channel answered with 500 and sends it once it recovers', async () => {
    const sender = '1000500';
    await sandbox.fault({ mode: '500', count: 2, phone_number_id: sender });
    const msg = outbound({ sender });
    await publishOutbound(clients, t, msg);
    const sent = await events.waitFor(msg.id, 'message.sent');
    const all = await sandbox.sends({ include: 'all', to: msg.recipient });
    expect(all.map((s) => s.outcome)).toEqual(['fault', 'fault', 'accepted']);
    expect(sent.data.provider_message_id).toBe(all[2].wamid);
    expect(events.of(msg.id, 'message.failed')).toHaveLength(0);
  });

  it('waits at least Retry-After before retrying a 429, pausing that sender meanwhile', async () => {
    const sender = '1000429';
    await sandbox.fault({ mode: '429', count: 1, retry_after_seconds: 2, phone_number_id: sender });
    const msg = outbound({ sender });
    await publishOutbound(clients, t, msg);
    await waitFor(async () => (await sandbox.sends({ include: 'all', to: msg.recipient })).length === 1, 10_000, '429');
    const paused = await waitFor(
      async () => {
        const r = await readiness();
        return r.body.checks.dispatch.channels.whatsapp.paused_senders?.[sender];
      },
      5000,
      'sender paused in readiness',
    );
    expect(Date.parse(paused)).toBeGreaterThan(Date.now());

    await events.waitFor(msg.id, 'message.sent');
    const [limited, accepted] = await sandbox.sends({ include: 'all', to: msg.recipient });
    expect(limited.http_status).toBe(429);
    expect(accepted.outcome).toBe('accepted');
    expect(accepted.received_at - limited.received_at).toBeGreaterThanOrEqual(2000);
  });

  it('after the last delivery publishes message.failed with the last reason and dead-letters the message', async () => {
    const sender = '1000599';
    await sandbox.fault({ mode: '500', phone_number_id: sender });
    const msg = outbound({ sender });
    await publishOutbound(clients, t, msg);
    const failed = await events.waitFor(msg.id, 'message.failed', 20_000);
    expect(failed.data.error).toMatchObject({ code: 'dead_lettered', retryable: false });
    expect(failed.data.error?.title).toContain('131000');
    expect(await sandbox.sends({ include: 'all', to: msg.recipient })).toHaveLength(MAX_DELIVER);

    const dlq = await waitFor(
      async () =>
        (await readStream(clients, t.stream('deadLetter'))).find(
          (m) => m.json<DeadLetteredOutbound>().message_id === msg.id,
        ),
      5000,
      'dead letter',
    );
    expect(dlq.header.get('Dlq-Reason')).toContain('131000');
    // The metadata and why, never the content.
    expect(dlq.json<DeadLetteredOutbound>()).toMatchObject({
      message_id: msg.id,
      channel: 'whatsapp',
      app_id: msg.app_id,
      connection_id: sender,
      attempts: MAX_DELIVER,
      queued_at: msg.queued_at,
    });
    expect(dlq.string()).not.toContain(JSON.stringify(msg.content).slice(1, -1));
    expect(dlq.string()).not.toContain(msg.recipient);
    // The work item with its content is gone from the outbound stream.
    const remaining = await readStream(clients, t.outboundStream('service'));
    expect(remaining.filter((m) => m.string().includes(msg.id))).toEqual([]);
    expect(events.of(msg.id, 'message.sent')).toHaveLength(0);
  });

  describe('a redelivered message (delivery state left by an earlier attempt)', () => {
    it('already sent: not sent again; message.sent carries the earlier wamid', async () => {
      const msg = outbound();
      await state.write(msg.id, { status: 'sent', providerMessageId: 'wamid.HBgLearlier' });
      await publishOutbound(clients, t, msg);
      const sent = await events.waitFor(msg.id, 'message.sent');
      expect(sent.data.provider_message_id).toBe('wamid.HBgLearlier');
      expect(await sandbox.sends({ include: 'all', to: msg.recipient })).toHaveLength(0);
    });

    it('interrupted mid-call, then a provider callback is observed: counts as sent, not sent again', async () => {
      const msg = outbound();
      await state.write(msg.id, { status: 'sending', since: Date.now() });
      await publishOutbound(clients, t, msg);
      await sleep(400);
      await state.recordObserved(msg.id, 'wamid.HBgLobserved');
      const sent = await events.waitFor(msg.id, 'message.sent');
      expect(sent.data.provider_message_id).toBe('wamid.HBgLobserved');
      expect(await sandbox.sends({ include: 'all', to: msg.recipient })).toHaveLength(0);
    });

    it('interrupted mid-call and nothing observed within the grace period: sent again, once', async () => {
      const msg = outbound();
      const since = Date.now();
      await state.write(msg.id, { status: 'sending', since });
      await publishOutbound(clients, t, msg);
      const sent = await events.waitFor(msg.id, 'message.sent');
      const arrivals = await sandbox.sends({ include: 'all', to: msg.recipient });
      expect(arrivals).toHaveLength(1);
      expect(arrivals[0].received_at - since).toBeGreaterThanOrEqual(SEND_TIMEOUT_MS + GRACE_MS);
      expect(sent.data.provider_message_id).toBe(arrivals[0].wamid);
      expect((await state.read(msg.id)).state).toEqual({ status: 'sent', providerMessageId: arrivals[0].wamid });
    });

    it('publishing the same outcome twice stores one event', async () => {
      const msg = outbound();
      await publishOutbound(clients, t, msg);
      const sent = await events.waitFor(msg.id, 'message.sent');
      const again = await publishDurable(clients.js, t.eventSubject('message.sent'), sent, sent.id);
      expect(again.duplicate).toBe(true);
    });
  });

  // Last: it leaves a marketing backlog behind.
  it('delivers a service message published after 5,000 queued marketing messages before the backlog drains', async () => {
    const marketing = Array.from({ length: 5000 }, (_, i) =>
      outbound({
        sender: '1000777',
        category: 'MARKETING',
        recipient: `79${String(i).padStart(8, '0')}5`,
        kind: 'TEMPLATE',
        content: { template: { name: 'spring_sale', language: 'en', body_values: [`${i}`] } },
      }),
    );
    for (let i = 0; i < marketing.length; i += 500) {
      await Promise.all(marketing.slice(i, i + 500).map((m) => publishOutbound(clients, t, m)));
    }
    const service = outbound({
      sender: '1000777',
      category: 'UTILITY',
      recipient: nextRecipient(),
      kind: 'TEMPLATE',
      content: { template: { name: 'order_shipped', language: 'en', body_values: ['42'] } },
    });
    expect(service.priority).toBe('service');
    await publishOutbound(clients, t, service);

    await waitFor(async () => (await sandbox.sends({ to: service.recipient })).length === 1, 30_000, 'service send');
    const all = await sandbox.sends({ phone_number_id: '1000777' });
    const position = all.findIndex((s) => s.body.to === service.recipient);
    const jsm = await clients.jsm();
    const backlog = await jsm.consumers.info(
      t.outboundStream('marketing'),
      t.outboundConsumer('marketing', 'whatsapp'),
    );
    // Far before the end: most of the marketing backlog was still waiting when it went out.
    expect(position).toBeGreaterThanOrEqual(0);
    expect(position).toBeLessThan(5001 - 2000);
    expect(backlog.num_pending).toBeGreaterThan(1500);
  });
});
