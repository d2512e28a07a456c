import { APPS_RPC, MessageReceivedData, MessageStatusData, TemplateStatusData } from '@app/contracts';
import { WhatsAppWebhookPayload } from '@app/channels';
import { NatsClients } from '@app/messaging';
import { waitFor } from '@app/testing';
import { ApiFactory } from '../../../test/support/factories';
import { Platform, startPlatform } from '../../../test/support/platform';
import {
  eventsEventually,
  messagesPayload,
  postStatus,
  postWebhook,
  readEvents,
  statusesPayload,
} from './support/whatsapp';

function inboundPayload(wabaId: string, phoneNumberId: string, wamid: string): WhatsAppWebhookPayload {
  return messagesPayload(wabaId, phoneNumberId, {
    messages: [{ from: '79990001122', id: wamid, timestamp: '1763700020', type: 'text', text: { body: 'Hi' } }],
  });
}

function templatePayload(wabaId: string, templateId: number): WhatsAppWebhookPayload {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: wabaId,
        time: 1763700030,
        changes: [
          {
            field: 'message_template_status_update',
            value: {
              event: 'APPROVED',
              message_template_id: templateId,
              message_template_name: 'order_update',
              message_template_language: 'en',
              reason: 'NONE',
            },
          },
        ],
      },
    ],
  };
}

/** Channel callbacks become events of the app and tenant that own the connection, asked of the api. */
describe('gateway: tenant of WhatsApp callbacks', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let clients: NatsClients;
  let app: Awaited<ReturnType<ApiFactory['activeApp']>>;
  let userId: string;
  /** Every tenant question the gateway asks the api (a plain subscriber sees each request too). */
  const questions: unknown[] = [];
  const url = () => platform.urls.gateway;

  beforeAll(async () => {
    platform = await startPlatform({ suite: 'wa-tenant', services: ['api', 'gateway'] });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    userId = (await factory.user('system')).userId;
    app = await factory.activeApp(userId, { waba_id: '3000001', phone_number_id: '4000001' });
    clients = await NatsClients.connect({ url: platform.infra.natsUrl, name: 'wa-tenant-test' });
    clients.nc.subscribe(`${platform.infra.prefix}.${APPS_RPC.resolveConnection}`, {
      callback: (_err, msg) => {
        questions.push(msg.json());
      },
    });
    await clients.nc.flush();
  });

  afterAll(async () => {
    await clients?.drain();
    await factory?.close();
    await platform?.stop();
  });

  it('stamps statuses, inbound messages and template updates with the app and tenant', async () => {
    const t = platform.infra.topology;
    const status = statusesPayload('3000001', '4000001', [
      { id: 'wamid.T1', status: 'delivered', timestamp: '1763700001', recipient_id: '79990001122' },
    ]);
    expect((await postWebhook(url(), JSON.stringify(status))).status).toBe(200);
    expect((await postWebhook(url(), JSON.stringify(inboundPayload('3000001', '4000001', 'wamid.IN-T1')))).status).toBe(
      200,
    );
    expect((await postWebhook(url(), JSON.stringify(templatePayload('3000001', 777001)))).status).toBe(200);

    const [delivered] = await eventsEventually<MessageStatusData>(
      clients,
      t,
      'message.delivered',
      (d) => d.provider_message_id === 'wamid.T1',
    );
    expect(delivered).toMatchObject({ app_id: app.id, user_id: userId, channel: 'whatsapp' });
    const [received] = await eventsEventually<MessageReceivedData>(
      clients,
      t,
      'message.received',
      (d) => d.provider_message_id === 'wamid.IN-T1',
    );
    expect(received).toMatchObject({ app_id: app.id, user_id: userId });
    const [template] = await eventsEventually<TemplateStatusData>(
      clients,
      t,
      'template.status_changed',
      (d) => d.wa_id === '777001',
    );
    expect(template).toMatchObject({ app_id: app.id, user_id: userId, data: { waba_id: '3000001' } });
  });

  it('publishes events of a connection no app owns without a tenant', async () => {
    const status = statusesPayload('3999999', '4999999', [
      { id: 'wamid.NOBODY', status: 'read', timestamp: '1763700001', recipient_id: '79990001122' },
    ]);
    expect((await postWebhook(url(), JSON.stringify(status))).status).toBe(200);
    const [read] = await eventsEventually<MessageStatusData>(
      clients,
      platform.infra.topology,
      'message.read',
      (d) => d.provider_message_id === 'wamid.NOBODY',
    );
    expect(read).toMatchObject({ app_id: null, user_id: null });
  });

  it('asks the api once per connection while the answer is remembered', async () => {
    const other = await factory.activeApp(userId, { waba_id: '3000002', phone_number_id: '4000002' });
    const asked = () =>
      questions.filter((q) => (q as { data?: { phone_number_id?: string } }).data?.phone_number_id === '4000002')
        .length;
    for (const [i, s] of (['sent', 'delivered', 'read'] as const).entries()) {
      const payload = statusesPayload('3000002', '4000002', [
        { id: 'wamid.C1', status: s, timestamp: String(1763700001 + i), recipient_id: '79990001122' },
      ]);
      expect((await postWebhook(url(), JSON.stringify(payload))).status).toBe(200);
    }
    const events = await waitFor(
      async () => {
        const found = (await readEvents(clients, platform.infra.topology)).filter(
          (e) => (e.data as { provider_message_id?: string }).provider_message_id === 'wamid.C1',
        );
        return found.length >= 3 ? found : false;
      },
      20_000,
      'three relayed statuses',
    );
    expect(asked()).toBe(1);
    // Each status reaches EVENTS with its owner once; their order there is not promised (the first
    // may wait in INBOUND for its owner while a later one goes at once): subscribers get them
    // forward only, ranked where they fan out.
    expect(events.map((e) => [e.type, e.app_id]).sort()).toEqual([
      ['message.delivered', other.id],
      ['message.read', other.id],
      ['message.sent', other.id],
    ]);
  });

  it("publishes a known connection's callbacks to EVENTS at once, without a detour through INBOUND", async () => {
    const t = platform.infra.topology;
    const jsm = await clients.jsm();
    const inboundLastSeq = async () => (await jsm.streams.info(t.stream('inbound'))).state.last_seq;
    const known = await factory.activeApp(userId, { waba_id: '3000004', phone_number_id: '4000004' });
    const post = async (wamid: string, status: 'sent' | 'delivered' | 'read', at: number) =>
      expect((await postStatus(url(), { wabaId: '3000004', phoneNumberId: '4000004' }, wamid, status, at)).status).toBe(
        200,
      );
    const ofMessage = async (wamid: string) =>
      (await readEvents(clients, t)).filter(
        (e) => (e.data as { provider_message_id?: string }).provider_message_id === wamid,
      );
    // The first callback of a connection the gateway does not know yet goes through INBOUND: the
    // channel is answered without waiting for the api, and the relay stamps it with its tenant.
    const before = await inboundLastSeq();
    await post('wamid.K1', 'sent', 1763700001);
    expect(await inboundLastSeq()).toBe(before + 1);
    const first = await waitFor(
      async () => {
        const found = await ofMessage('wamid.K1');
        return found.length ? found : false;
      },
      20_000,
      'the first callback relayed',
    );
    expect(first.map((e) => [e.type, e.app_id, e.user_id])).toEqual([['message.sent', known.id, userId]]);

    // Known now: the next callbacks skip INBOUND.
    const known1 = await waitFor(
      async () => {
        const seq = await inboundLastSeq();
        await post('wamid.K1', 'delivered', 1763700002);
        await post('wamid.K1', 'read', 1763700003);
        await post('wamid.K2', 'sent', 1763700004);
        const events = await ofMessage('wamid.K1');
        return (await inboundLastSeq()) === seq && events.length === 3 ? events : false;
      },
      20_000,
      'a callback published without INBOUND',
    );
    expect(known1.map((e) => [e.type, e.app_id, e.user_id])).toEqual([
      ['message.sent', known.id, userId],
      ['message.delivered', known.id, userId],
      ['message.read', known.id, userId],
    ]);
    expect(await ofMessage('wamid.K2')).toEqual([
      expect.objectContaining({ type: 'message.sent', app_id: known.id, user_id: userId, channel: 'whatsapp' }),
    ]);
  });

  it('acknowledges callbacks while the api is stopped and relays them with their tenant once it returns', async () => {
    const raw = JSON.stringify(
      statusesPayload('3000003', '4000003', [
        { id: 'wamid.DOWN', status: 'delivered', timestamp: '1763700001', recipient_id: '79990001122' },
      ]),
    );
    const third = await factory.activeApp(userId, { waba_id: '3000003', phone_number_id: '4000003' });
    const relayed = () =>
      readEvents(clients, platform.infra.topology).then((all) =>
        all.filter((e) => (e.data as { provider_message_id?: string }).provider_message_id === 'wamid.DOWN'),
      );
    await platform.stopService('api');
    try {
      // The channel is answered at once: the callback is stored, its owner resolved later.
      const res = await postWebhook(url(), raw);
      expect(res.status).toBe(200);
      expect((await postWebhook(url(), raw)).status).toBe(200);
      await new Promise((r) => setTimeout(r, 1500));
      expect(await relayed()).toEqual([]);
      // The gateway stays ready; its WhatsApp channel shows that callbacks wait for their owner.
      const readiness = async () => {
        const res = await fetch(`${platform.adminUrls.gateway}/readyz`);
        return { status: res.status, body: (await res.json()) as { status: string; checks: Record<string, any> } }; // eslint-disable-line @typescript-eslint/no-explicit-any
      };
      const degraded = await waitFor(
        async () => {
          const r = await readiness();
          return r.body.checks.channels?.channels?.whatsapp?.state === 'degraded' ? r : false;
        },
        15_000,
        'the whatsapp channel degraded',
      );
      expect(degraded.status).toBe(200);
      expect(degraded.body.status).toBe('ready');
      expect(degraded.body.checks.channels).toMatchObject({
        status: 'degraded',
        channels: { telegram: { state: 'ok' }, max: { state: 'ok' } },
      });
    } finally {
      await platform.startService('api');
    }
    // Once the api answers, the stored callback reaches EVENTS with its tenant, once.
    const delivered = await eventsEventually<MessageStatusData>(
      clients,
      platform.infra.topology,
      'message.delivered',
      (d) => d.provider_message_id === 'wamid.DOWN',
    );
    expect(delivered).toHaveLength(1);
    expect(delivered[0]).toMatchObject({ app_id: third.id, user_id: userId });
    expect(await relayed()).toHaveLength(1);
    const after = (await (await fetch(`${platform.adminUrls.gateway}/readyz`)).json()) as {
      checks: { channels: { channels: { whatsapp: { state: string } } } };
    };
    expect(after.checks.channels.channels.whatsapp.state).toBe('ok');
  });
});
