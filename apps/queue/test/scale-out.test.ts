import { ChildProcess } from 'node:child_process';
import { maxWithin, Topology } from '@app/contracts';
import { NatsClients } from '@app/messaging';
import { killHard, spawnTs, waitFor, waitForLine } from '@app/testing';
import { freePort, Platform, startPlatform } from '../../../test/support/platform';
import { outbound, publishOutbound, SandboxWhatsApp } from './support/dispatch-kit';

const RATE = 20;
const REPLICAS = 3;
const PER_SENDER = 80;
/** Arrivals a stalled process may bunch into one window beyond the rate (half a second's worth). */
const BUNCHED = RATE / 2;

describe('three queue replicas of one channel', () => {
  let platform: Platform;
  let clients: NatsClients;
  let t: Topology;
  let sandbox: SandboxWhatsApp;
  const replicas: { proc: ChildProcess; url: string }[] = [];

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'queue-scale-out',
      services: ['sandbox'],
      env: { SANDBOX_STATUS_DELAY_MS: '600000' },
    });
    t = platform.infra.topology;
    clients = await NatsClients.connect({ url: platform.infra.natsUrl, name: 'queue-scale-out-test' });
    sandbox = new SandboxWhatsApp(platform.urls.sandbox);
    for (let i = 0; i < REPLICAS; i++) {
      const port = await freePort();
      const adminPort = await freePort();
      const proc = spawnTs('apps/queue/src/main.ts', {
        ...platform.env,
        LOG_LEVEL: 'info',
        QUEUE_PORT: String(port),
        ADMIN_PORT: String(adminPort),
        CHANNELS: 'whatsapp',
        QUEUE_CONCURRENCY: '20',
        QUEUE_WHATSAPP_RATE_PER_SENDER: String(RATE),
        QUEUE_WHATSAPP_RECIPIENT_INTERVAL_MS: '0',
      });
      // Its metrics are on the admin listener.
      replicas.push({ proc, url: `http://127.0.0.1:${adminPort}` });
    }
    await Promise.all(replicas.map((r) => waitForLine(r.proc, /delivery worker started/, 60_000)));
  });

  afterAll(async () => {
    for (const r of replicas) await killHard(r.proc);
    await clients?.drain();
    await platform?.stop();
  });

  async function sentBy(url: string): Promise<number> {
    const text = await (await fetch(`${url}/metrics`)).text();
    const lines = text.split('\n').filter((l) => l.startsWith('queue_messages_total') && l.includes('outcome="sent"'));
    return lines.reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
  }

  it('keeps each sender within its rate across replicas, while the senders spread over them', async () => {
    // Warm every replica first (a fresh process's first channel call is slow and would bunch the arrivals after it).
    const warm = Array.from({ length: 30 }, () => outbound({ sender: '5000000' }));
    await Promise.all(warm.map((m) => publishOutbound(clients, t, m)));
    await waitFor(async () => (await sandbox.sends({ phone_number_id: '5000000' })).length === 30, 30_000, 'warm');

    const senders = ['5000001', '5000002', '5000003'];
    const msgs = senders.flatMap((s) => Array.from({ length: PER_SENDER }, () => outbound({ sender: s })));
    await Promise.all(msgs.map((m) => publishOutbound(clients, t, m)));
    const arrivals = async (s: string) => (await sandbox.sends({ phone_number_id: s })).map((x) => x.received_at);
    await waitFor(
      async () => (await Promise.all(senders.map(arrivals))).every((a) => a.length === PER_SENDER),
      30_000,
      'all sent',
    );

    const paced = ((PER_SENDER - 1) / RATE) * 1000;
    for (const s of senders) {
      const times = (await arrivals(s)).sort((a, b) => a - b);
      // Paced per replica, three replicas would send a sender's messages in a third of this. A
      // stalled process on a loaded machine delays some arrivals, so the span may shrink a little.
      expect(times[times.length - 1] - times[0]).toBeGreaterThanOrEqual(paced * 0.75);
      // Nor more than the rate in any two seconds, give or take what a stalled process bunches;
      // unshared, the three replicas would put all of them within two seconds.
      expect(maxWithin(times, 2000)).toBeLessThanOrEqual(2 * RATE + BUNCHED);
    }
    // Every replica took part.
    const counts = await Promise.all(replicas.map((r) => sentBy(r.url)));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(senders.length * PER_SENDER + warm.length);
    for (const c of counts) expect(c).toBeGreaterThan(0);
  });
});
