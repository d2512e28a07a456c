import { Topology } from '@app/contracts';
import { NatsClients } from '@app/messaging';
import { waitFor } from '@app/testing';
import { Platform, startPlatform } from '../../../test/support/platform';
import { nextRecipient, outbound, publishOutbound, SandboxWhatsApp } from './support/dispatch-kit';

const RATE = 10;
const RECIPIENT_INTERVAL_MS = 400;
/**
 * The recipient interval counts from the end of the previous call, so arrivals are at least the
 * interval apart whatever the latency; this only absorbs millisecond rounding.
 */
const JITTER_MS = 5;
/** How far a request's latency may move one arrival (first or last) on a loaded 2-core machine. */
const ARRIVAL_JITTER_MS = 250;

describe('queue pacing per sender and recipient', () => {
  let platform: Platform;
  let clients: NatsClients;
  let t: Topology;
  let sandbox: SandboxWhatsApp;

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'queue-pacing',
      services: ['queue', 'sandbox'],
      env: {
        CHANNELS: 'whatsapp',
        QUEUE_WHATSAPP_RATE_PER_SENDER: String(RATE),
        QUEUE_WHATSAPP_RECIPIENT_INTERVAL_MS: String(RECIPIENT_INTERVAL_MS),
        QUEUE_CONCURRENCY: '40',
        SANDBOX_STATUS_DELAY_MS: '600000',
      },
    });
    t = platform.infra.topology;
    clients = await NatsClients.connect({ url: platform.infra.natsUrl, name: 'queue-pacing-test' });
    sandbox = new SandboxWhatsApp(platform.urls.sandbox);
  });

  afterAll(async () => {
    await clients?.drain();
    await platform?.stop();
  });

  it(`sends N messages of one sender no faster than ${RATE}/s, without slowing another sender`, async () => {
    const n = 16;
    const a = Array.from({ length: n }, () => outbound({ sender: '3000001' }));
    const b = Array.from({ length: n }, () => outbound({ sender: '3000002' }));
    await Promise.all([...a, ...b].map((m) => publishOutbound(clients, t, m)));

    const arrivals = async (sender: string) => sandbox.sends({ phone_number_id: sender });
    await waitFor(
      async () => (await arrivals('3000001')).length === n && (await arrivals('3000002')).length === n,
      15_000,
      'all sent',
    );
    const timesA = (await arrivals('3000001')).map((s) => s.received_at);
    const timesB = (await arrivals('3000002')).map((s) => s.received_at);

    const span = (ts: number[]) => Math.max(...ts) - Math.min(...ts);
    // Slots are granted exactly 1/RATE apart; arrivals at the channel also carry each request's
    // latency, so the first and last may move by a request's latency on a loaded machine. Unpaced,
    // all n would arrive within a few tens of milliseconds.
    const paced = ((n - 1) / RATE) * 1000;
    expect(span(timesA)).toBeGreaterThanOrEqual(paced - ARRIVAL_JITTER_MS);
    expect(span(timesB)).toBeGreaterThanOrEqual(paced - ARRIVAL_JITTER_MS);
    // Each sender has its own bucket: the second one is not queued behind the first.
    expect(Math.min(...timesB)).toBeLessThan(Math.max(...timesA) - 1000);
    expect(Math.min(...timesA)).toBeLessThan(Math.max(...timesB) - 1000);
  });

  it('keeps the least interval between messages of one sender to one recipient', async () => {
    const recipient = nextRecipient();
    const msgs = Array.from({ length: 4 }, () => outbound({ sender: '3000003', recipient }));
    const other = outbound({ sender: '3000003' });
    await Promise.all([...msgs, other].map((m) => publishOutbound(clients, t, m)));

    await waitFor(async () => (await sandbox.sends({ to: recipient })).length === 4, 15_000, 'all four sent');
    const times = (await sandbox.sends({ to: recipient })).map((s) => s.received_at).sort((x, y) => x - y);
    for (let i = 1; i < times.length; i++) {
      expect(times[i] - times[i - 1]).toBeGreaterThanOrEqual(RECIPIENT_INTERVAL_MS - JITTER_MS);
    }
    // Another recipient of the same sender does not wait behind that one.
    const [otherSend] = await sandbox.sends({ to: other.recipient });
    expect(otherSend.received_at).toBeLessThan(times[times.length - 1]);
  });
});
