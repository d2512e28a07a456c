import { newMessageId, OutboundMessage } from '@app/contracts';
import { NatsClients, publishDurable } from '@app/messaging';
import { waitFor } from '@app/testing';
import { AppEntity } from '../src/wa-apps/app.entity';
import { ApiFactory, TestUser } from '../../../test/support/factories';
import { Platform, startPlatform } from '../../../test/support/platform';
import { client } from './support/http';
import { registerSandboxNumber } from '../../../test/support/sandbox';

/**
 * Through the whole platform: api -> queue -> WhatsApp (sandbox) -> status callbacks -> gateway ->
 * events -> api. Statuses reach DELIVERED/READ, each message is charged once, the balance drops by the prices.
 */
describe('sending end to end', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let sys: TestUser;
  let app: AppEntity;
  let call: ReturnType<typeof client>;
  const customer = '5511987654321';

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'messages-e2e',
      services: ['api', 'gateway', 'queue', 'sandbox'],
      env: { SANDBOX_STATUS_DELAY_MS: '50' },
    });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    sys = await factory.user('system', { balance: 1 });
    app = await factory.activeApp(sys.userId, { message_limit: 'TIER_250' });
    await registerSandboxNumber(platform.urls.sandbox, app);
    await factory.sendableTemplate(app.id, { name: 'welcome_offer', category: 'MARKETING', body: 'Welcome {{1}}!' });
    call = client(`${platform.urls.api}/api`);
  });

  afterAll(async () => {
    await factory?.close();
    await platform?.stop();
  });

  const status = async (id: string) =>
    (await call('GET', `/v1/wa/apps/${app.id}/messages/${id}`, { auth: sys.auth })).body as {
      status: string;
      timeline: { status: string }[];
    };

  it('a template and, once the customer writes, a text: delivered, charged once each', async () => {
    const tpl = await call('POST', `/v1/wa/apps/${app.id}/messages`, {
      auth: sys.auth,
      body: {
        phone: customer,
        type: 'TEMPLATE',
        template: { name: 'welcome_offer', components: { body: { values: ['Ana'] } } },
      },
    });
    expect(tpl.status).toBe(201);
    // Free-form is refused until the customer writes.
    const early = await call('POST', `/v1/wa/apps/${app.id}/messages`, {
      auth: sys.auth,
      body: { phone: customer, type: 'TEXT', text: { body: 'Thanks for writing' } },
    });
    expect(early.status).toBe(422);
    const inbound = await fetch(`${platform.urls.sandbox}/_sandbox/whatsapp/inbound`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ phone_number_id: app.phoneNumberId, from: customer, text: 'Hi, I have a question' }),
    });
    expect(inbound.status).toBeLessThan(300);
    const text = await waitFor(
      async () => {
        const res = await call('POST', `/v1/wa/apps/${app.id}/messages`, {
          auth: sys.auth,
          body: { phone: customer, type: 'TEXT', text: { body: 'Thanks for writing' } },
        });
        return res.status === 201 ? res : false;
      },
      20_000,
      'the window opened by the inbound message',
      250,
    );
    const ids = [tpl.body.message.id as string, text.body.message.id as string];
    for (const id of ids) {
      await waitFor(
        async () => ['DELIVERED', 'READ'].includes((await status(id)).status),
        30_000,
        `${id} delivered`,
        200,
      );
    }
    const timeline = (await status(ids[0])).timeline.map((s) => s.status);
    // In the order it happened (the sandbox reports sent, delivered, read in that order).
    expect(timeline.slice(0, 3)).toEqual(['QUEUED', 'SENT', 'DELIVERED']);
    const tx = await call('GET', `/v1/users/${sys.userId}/transactions?start_date=2020-01-01`, { auth: sys.auth });
    const charges = tx.body.filter((t: { status: string }) => t.status === 'DELIVERED');
    expect(charges.map((t: { category: string; amount: number }) => [t.category, t.amount]).sort()).toEqual([
      ['MARKETING', -0.05],
      ['SERVICE', 0],
    ]);
    const balance = await call('GET', `/v1/users/${sys.userId}/balances`, { auth: sys.auth });
    expect(balance.body.balance).toBeCloseTo(1 - 0.05, 4);
  });

  it('every other kind reaches the channel with its Graph API body and comes back DELIVERED', async () => {
    // The window is open (the customer wrote in the test above); a reaction needs a message to react to.
    const target = await call('POST', `/v1/wa/apps/${app.id}/messages`, {
      auth: sys.auth,
      body: { phone: customer, type: 'TEXT', text: { body: 'Your order is ready' } },
    });
    expect(target.status).toBe(201);
    const targetId = target.body.message.id as string;
    await waitFor(async () => (await status(targetId)).status !== 'QUEUED', 20_000, 'the target sent', 200);
    const kinds: { type: string; data: Record<string, unknown>; graph: Record<string, unknown> }[] = [
      {
        type: 'IMAGE',
        data: { url: 'https://cdn.example.com/p.jpg', caption: 'Your parcel' },
        graph: { type: 'image', image: { link: 'https://cdn.example.com/p.jpg', caption: 'Your parcel' } },
      },
      {
        type: 'VIDEO',
        data: { url: 'https://cdn.example.com/v.mp4', caption: 'How to open it' },
        graph: { type: 'video', video: { link: 'https://cdn.example.com/v.mp4', caption: 'How to open it' } },
      },
      {
        type: 'DOCUMENT',
        data: { url: 'https://cdn.example.com/invoice.pdf', caption: 'Invoice' },
        graph: {
          type: 'document',
          document: expect.objectContaining({ link: 'https://cdn.example.com/invoice.pdf', caption: 'Invoice' }),
        },
      },
      {
        type: 'AUDIO',
        data: { url: 'https://cdn.example.com/hello.ogg', is_voice: true },
        graph: { type: 'audio', audio: expect.objectContaining({ link: 'https://cdn.example.com/hello.ogg' }) },
      },
      {
        type: 'REACTION',
        data: { emoji: '👍', message_id: targetId },
        graph: { type: 'reaction', reaction: { message_id: expect.stringMatching(/^wamid\./), emoji: '👍' } },
      },
    ];
    const sent: { id: string; graph: Record<string, unknown> }[] = [];
    for (const k of kinds) {
      const res = await call('POST', `/v1/wa/apps/${app.id}/messages`, {
        auth: sys.auth,
        body: { phone: customer, type: k.type, [k.type.toLowerCase()]: k.data },
      });
      expect([k.type, res.status]).toEqual([k.type, 201]);
      sent.push({ id: res.body.message.id as string, graph: k.graph });
    }
    for (const m of sent) {
      await waitFor(
        async () => ['DELIVERED', 'READ'].includes((await status(m.id)).status),
        30_000,
        `${m.id} delivered`,
        200,
      );
    }
    const received = (await (await fetch(`${platform.urls.sandbox}/_sandbox/whatsapp/messages`)).json()) as {
      body: Record<string, unknown>;
    }[];
    for (const m of sent) {
      const arrived = received.filter((r) => r.body.biz_opaque_callback_data === m.id);
      // Exactly once, with the Cloud API body for its kind.
      expect(arrived).toHaveLength(1);
      expect(arrived[0].body).toMatchObject({ messaging_product: 'whatsapp', to: customer, ...m.graph });
    }
  });

  it("a message published again after the stream's duplicate window reaches the channel once", async () => {
    // What the outbox relay does after a long outage: the same message, stored by the stream as new
    // (its duplicate window has passed, modelled here by a second Nats-Msg-Id).
    const topology = platform.infra.topology;
    const nats = await NatsClients.connect({ url: platform.infra.natsUrl, name: 'e2e-republish' });
    try {
      const id = newMessageId();
      const outbound: OutboundMessage = {
        id,
        channel: 'whatsapp',
        priority: 'service',
        category: 'SERVICE',
        user_id: sys.userId,
        app_id: app.id,
        sender: { connection_id: app.phoneNumberId!, waba_id: app.wabaId },
        recipient: customer,
        kind: 'TEXT',
        content: { text: { body: 'Only once, please' } },
        queued_at: Date.now(),
      };
      const subject = topology.outboundSubject('service', 'whatsapp');
      await publishDurable(nats.js, subject, outbound, id);
      const arrivals = async () =>
        (
          (await (await fetch(`${platform.urls.sandbox}/_sandbox/whatsapp/messages`)).json()) as {
            body: Record<string, unknown>;
          }[]
        ).filter((r) => r.body.biz_opaque_callback_data === id);
      await waitFor(async () => (await arrivals()).length > 0, 20_000, 'the first publish sent', 200);
      await publishDurable(nats.js, subject, outbound, `${id}-republished`);
      const jsm = await nats.jsm();
      await waitFor(
        async () => {
          const info = await jsm.consumers.info(
            topology.outboundStream('service'),
            topology.outboundConsumer('service', 'whatsapp'),
          );
          return info.num_pending === 0 && info.num_ack_pending === 0 && info.delivered.stream_seq > 0;
        },
        20_000,
        'the queue to settle the republished copy',
        200,
      );
      expect(await arrivals()).toHaveLength(1);
    } finally {
      await nats.drain();
    }
  });
});
