import { NatsClients } from '@app/messaging';
import { outbound, publishOutbound, SandboxWhatsApp } from '../../apps/queue/test/support/dispatch-kit';
import { ApiFactory } from '../support/factories';
import { Platform, startPlatform } from '../support/platform';
import { registerSandboxNumber } from '../support/sandbox';

/** Every WhatsApp number is paced at this many messages a second: sender A's backlog lasts minutes. */
const RATE = 20;
const BACKLOG = 3_000;
const BUSY_SENDER = '7100001';

/**
 * One sender's backlog never delays another's message on the same channel and lane. Sender A has
 * thousands of UTILITY messages queued on the service lane (as the api's outbox publishes them) and
 * is paced at its number's rate, so its backlog takes minutes; sender B, another tenant's number
 * with nothing queued, sends one UTILITY template through the api, and it reaches the channel
 * within 2 s of being accepted, while A keeps going at its rate and never above it.
 */
describe('fair delivery across the senders of a channel', () => {
  let platform: Platform;
  let clients: NatsClients;
  let factory: ApiFactory;

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'sender-fairness',
      services: ['api', 'queue', 'sandbox'],
      env: {
        CHANNELS: 'whatsapp',
        QUEUE_WHATSAPP_RATE_PER_SENDER: String(RATE),
        // No status callbacks while the test runs: nobody listens for them here.
        SANDBOX_STATUS_DELAY_MS: '600000',
        RATE_LIMIT_PER_SECOND: '100000',
        RATE_LIMIT_BURST: '100000',
      },
    });
    clients = await NatsClients.connect({ url: platform.infra.natsUrl, name: 'sender-fairness' });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
  });

  afterAll(async () => {
    await factory?.close();
    await clients?.drain();
    await platform?.stop();
  });

  it("an idle sender's message reaches the channel within 2 s while another sender works off a backlog of thousands", async () => {
    const sandbox = new SandboxWhatsApp(platform.urls.sandbox);
    const user = await factory.user('system', { balance: 100 });
    const app = await factory.activeApp(user.userId, { message_limit: 'TIER_UNLIMITED' });
    await factory.sendableTemplate(app.id, { name: 'login_code', category: 'UTILITY', body: 'Your code is {{1}}' });
    await registerSandboxNumber(platform.urls.sandbox, app);

    const t = platform.infra.topology;
    const backlog = Array.from({ length: BACKLOG }, () => outbound({ sender: BUSY_SENDER, category: 'UTILITY' }));
    for (let i = 0; i < backlog.length; i += 500) {
      await Promise.all(backlog.slice(i, i + 500).map((m) => publishOutbound(clients, t, m)));
    }
    const busyCount = async () => (await sandbox.arrivals()).find((a) => a.phone_number_id === BUSY_SENDER)?.count ?? 0;
    // A is under way: its messages reach the channel at its pace, thousands still to go.
    const waitStarted = Date.now();
    while ((await busyCount()) < RATE * 2) {
      if (Date.now() - waitStarted > 30_000) throw new Error("sender A's backlog did not start");
      await new Promise((r) => setTimeout(r, 100));
    }

    const res = await fetch(`${platform.urls.api}/api/v1/wa/apps/${app.id}/messages`, {
      method: 'POST',
      headers: { authorization: user.auth, 'content-type': 'application/json' },
      body: JSON.stringify({
        phone: '79990001122',
        type: 'TEMPLATE',
        template: { name: 'login_code', components: { body: { values: ['4711'] } } },
      }),
    });
    const accepted = Date.now();
    expect(res.status).toBe(201);

    let arrivedAt: number | undefined;
    while (arrivedAt === undefined && Date.now() - accepted < 15_000) {
      const got = await sandbox.sends({ phone_number_id: app.phoneNumberId! });
      arrivedAt = got.find((s) => s.outcome === 'accepted')?.received_at;
      if (arrivedAt === undefined) await new Promise((r) => setTimeout(r, 50));
    }
    expect(arrivedAt).toBeDefined();
    expect(arrivedAt! - accepted).toBeLessThanOrEqual(2_000);

    // A was paced at its rate all along, and still has most of its backlog ahead of it. The sandbox
    // counts arrivals, not departures: a send held up on its way (a loaded machine: 22 in a second
    // twice in one CI rehearsal) lands in the next second beside the ones sent on time, so two
    // over the rate is the path's jitter; an unpaced sender would be hundreds over.
    const busy = (await sandbox.arrivals()).find((a) => a.phone_number_id === BUSY_SENDER)!;
    expect(busy.max_per_second).toBeLessThanOrEqual(RATE + 2);
    expect(busy.count).toBeLessThan(BACKLOG / 2);
  });
});
