import { Topology } from '@app/contracts';
import { NatsClients } from '@app/messaging';
import { waitFor } from '@app/testing';
import { Platform, startPlatform } from '../../../test/support/platform';
import { outbound, publishOutbound, SandboxWhatsApp } from './support/dispatch-kit';

const RATE = 20;
const CONCURRENCY = 40;
/**
 * Marketing arrivals the UTILITY message may trail by after it was accepted: the slot already being
 * waited on, and the few that reached the sandbox between its log being read and the publish.
 */
const SLACK = 3;

describe('priority while the queue runs a marketing backlog', () => {
  let platform: Platform;
  let clients: NatsClients;
  let t: Topology;
  let sandbox: SandboxWhatsApp;

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'queue-priority',
      services: ['queue', 'sandbox'],
      env: {
        CHANNELS: 'whatsapp',
        QUEUE_WHATSAPP_RATE_PER_SENDER: String(RATE),
        QUEUE_WHATSAPP_RECIPIENT_INTERVAL_MS: '0',
        QUEUE_CONCURRENCY: String(CONCURRENCY),
        SANDBOX_STATUS_DELAY_MS: '600000',
      },
    });
    t = platform.infra.topology;
    clients = await NatsClients.connect({ url: platform.infra.natsUrl, name: 'queue-priority-test' });
    sandbox = new SandboxWhatsApp(platform.urls.sandbox);
  });

  afterAll(async () => {
    await clients?.drain();
    await platform?.stop();
  });

  it('a UTILITY message overtakes the marketing messages already pulled and paced for its sender', async () => {
    const sender = '4000001';
    const backlog = Array.from({ length: 200 }, () => outbound({ sender, category: 'MARKETING' }));
    for (const m of backlog) await publishOutbound(clients, t, m);
    // The worker is running: a full lane of marketing messages is in hand, waiting for the sender's slots.
    await waitFor(
      async () => (await sandbox.sends({ phone_number_id: sender })).length >= 5,
      15_000,
      'marketing flows',
    );

    const before = (await sandbox.sends({ phone_number_id: sender })).length;
    const utility = outbound({ sender, category: 'UTILITY' });
    await publishOutbound(clients, t, utility);
    await waitFor(
      async () => (await sandbox.sends({ phone_number_id: sender })).some((s) => s.body.to === utility.recipient),
      15_000,
      'utility sent',
    );
    const arrivals = (await sandbox.sends({ phone_number_id: sender })).sort((a, b) => a.seq - b.seq);
    const position = arrivals.findIndex((s) => s.body.to === utility.recipient);
    // Behind the marketing messages in hand it would come after about CONCURRENCY of them.
    expect(position - before).toBeLessThanOrEqual(SLACK);
    expect(position).toBeLessThan(backlog.length);
  });
});
