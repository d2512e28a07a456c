import { randomUUID } from 'node:crypto';
import type { NatsConnection } from '@nats-io/nats-core';
import { CAMPAIGNS_RPC, CampaignRecipientInput } from '@app/contracts';
import { connectNats, RpcClient } from '@app/messaging';
import { waitFor } from '@app/testing';
import { ApiFactory, TestUser } from '../../../test/support/factories';
import { Platform, startPlatform } from '../../../test/support/platform';
import { registerSandboxNumber } from '../../../test/support/sandbox';

/**
 * A campaign through the whole platform: the runner (on its own timer) sends through the queue to
 * WhatsApp (sandbox); the channel's statuses come back, the report follows them and the queue's
 * events name the campaign.
 */
describe('campaign delivery end to end', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let rpc: RpcClient;
  let nats: NatsConnection;
  let user: TestUser;
  const sent: { data: { message_id: string; campaign_id?: string } }[] = [];
  const accountId = randomUUID();

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'campaigns-delivery',
      services: ['api', 'gateway', 'queue', 'sandbox'],
      env: { SANDBOX_STATUS_DELAY_MS: '50', CAMPAIGN_TICK_MS: '100' },
    });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    rpc = new RpcClient({ url: platform.infra.natsUrl, prefix: platform.infra.prefix, name: 'campaigns-delivery' });
    nats = await connectNats({ url: platform.infra.natsUrl, name: 'campaigns-delivery-events' });
    nats.subscribe(platform.infra.topology.eventSubject('message.sent'), {
      callback: (_err, msg) => {
        sent.push(msg.json());
      },
    });
    user = await factory.user('system', { balance: 10 });
  });

  afterAll(async () => {
    await nats?.close();
    await rpc?.onApplicationShutdown();
    await factory?.close();
    await platform?.stop();
  });

  it('every recipient is delivered, charged, and its sent event names the campaign', async () => {
    const app = await factory.activeApp(user.userId, { message_limit: 'TIER_250' });
    await registerSandboxNumber(platform.urls.sandbox, app);
    await factory.sendableTemplate(app.id, { name: 'camp_e2e', body: 'Hello {{1}}', category: 'MARKETING' });
    const draft = await rpc.call(CAMPAIGNS_RPC.create, {
      account_id: accountId,
      user_id: user.userId,
      definition: {
        name: 'Delivered',
        template: 'camp_e2e',
        params: ['{{contact.name}}'],
        audience: { list: 'all' },
        channels: ['whatsapp'],
      },
    });
    const recipients: CampaignRecipientInput[] = Array.from({ length: 5 }, (_, i) => ({
      seq: i + 1,
      contact_id: `c${i + 1}`,
      external_id: null,
      time_zone: 'Europe/Berlin',
      route: [{ channel: 'whatsapp', to: `55119876500${i + 1}` }],
      params: [`Name ${i + 1}`],
    }));
    const ref = { account_id: accountId, id: draft.id };
    await rpc.call(CAMPAIGNS_RPC.load, { ...ref, reset: true, recipients });
    await rpc.call(CAMPAIGNS_RPC.launch, { ...ref, template_app_id: app.id, total: 5 });

    const done = await waitFor(
      async () => {
        const view = await rpc.call(CAMPAIGNS_RPC.get, ref);
        // The sandbox's person reads what was delivered.
        return (
          view.state === 'completed' && view.counts.delivered + view.counts.read === 5 && view.money.spent > 0 && view
        );
      },
      30_000,
      'the campaign delivered',
      200,
    );
    expect(done.money.spent).toBeCloseTo(5 * 0.05, 4);
    expect(done.money.held).toBe(0);
    const report = await rpc.call(CAMPAIGNS_RPC.recipients, { ...ref, limit: 10 });
    expect(report.data.map((r) => r.status).every((s) => s === 'delivered' || s === 'read')).toBe(true);
    expect(report.data.map((r) => r.channel)).toEqual(Array(5).fill('whatsapp'));
    const ids = report.data.map((r) => r.message_id);
    await waitFor(() => ids.every((id) => sent.some((e) => e.data.message_id === id)), 10_000, 'sent events');
    for (const id of ids) {
      expect(sent.find((e) => e.data.message_id === id)!.data.campaign_id).toBe(draft.id);
    }
  });
});
