import { ChildProcess } from 'node:child_process';
import { Topology } from '@app/contracts';
import { DeliveryStateStore, NatsClients } from '@app/messaging';
import { killHard, spawnTs, waitFor, waitForLine } from '@app/testing';
import { Platform, startPlatform } from '../../../test/support/platform';
import { EventsTail, outbound, publishOutbound, SandboxWhatsApp } from './support/dispatch-kit';

const TOTAL = 200;

/**
 * A queue process killed with SIGKILL in the middle of a run: after a restart every message
 * reaches the channel exactly once and has exactly one message.sent event.
 */
describe('queue crash and restart', () => {
  let platform: Platform;
  let clients: NatsClients;
  let t: Topology;
  let sandbox: SandboxWhatsApp;
  let state: DeliveryStateStore;
  let child: ChildProcess | undefined;
  let observer: NodeJS.Timeout | undefined;

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'queue-crash',
      services: ['sandbox'],
      // A short ack_wait so the killed worker's messages come back quickly.
      topology: { ackWaitMs: 2000 },
      env: { SANDBOX_STATUS_DELAY_MS: '600000' },
    });
    t = platform.infra.topology;
    clients = await NatsClients.connect({ url: platform.infra.natsUrl, name: 'queue-crash-test' });
    sandbox = new SandboxWhatsApp(platform.urls.sandbox);
    state = await DeliveryStateStore.open(clients.js, t);
  });

  afterAll(async () => {
    if (observer) clearInterval(observer);
    if (child) await killHard(child);
    await clients?.drain();
    await platform?.stop();
  });

  async function startQueue(): Promise<ChildProcess> {
    const proc = spawnTs('apps/queue/src/main.ts', {
      ...platform.env,
      // Its own admin port: the default (its port + 1000) is in another jest worker's port window.
      ADMIN_PORT: new URL(platform.adminUrls.queue).port,
      LOG_LEVEL: 'info',
      CHANNELS: 'whatsapp',
      QUEUE_CONCURRENCY: '10',
      QUEUE_WHATSAPP_RATE_PER_SENDER: '100',
      QUEUE_WHATSAPP_RECIPIENT_INTERVAL_MS: '0',
      QUEUE_BACKOFF_BASE_MS: '200',
      QUEUE_BACKOFF_MAX_MS: '1000',
      WHATSAPP_TIMEOUT_MS: '2000',
      QUEUE_UNCERTAIN_GRACE_MS: '2000',
    });
    await waitForLine(proc, /delivery worker started/, 30_000);
    return proc;
  }

  /**
   * Plays the gateway's part: a status callback names the message (biz_opaque_callback_data), and
   * the gateway records it as observed. Here the sandbox's log of accepted sends stands in for
   * its callbacks, which would go to a gateway this suite does not run.
   */
  function observeCallbacks(): NodeJS.Timeout {
    const recorded = new Set<string>();
    let busy = false;
    return setInterval(() => {
      if (busy) return;
      busy = true;
      void (async () => {
        for (const s of await sandbox.sends()) {
          const id = s.body.biz_opaque_callback_data;
          if (typeof id !== 'string' || !s.wamid || recorded.has(s.wamid)) continue;
          await state.recordObserved(id, s.wamid);
          recorded.add(s.wamid);
        }
      })()
        .catch(() => undefined)
        .finally(() => (busy = false));
    }, 100);
  }

  it('sends every message exactly once across a SIGKILL and a restart', async () => {
    observer = observeCallbacks();
    child = await startQueue();

    const msgs = Array.from({ length: TOTAL }, () => outbound({ sender: '4000001' }));
    await Promise.all(msgs.map((m) => publishOutbound(clients, t, m)));

    const accepted = () => sandbox.sends({ phone_number_id: '4000001' });
    await waitFor(async () => (await accepted()).length >= 60, 20_000, 'a third of the messages sent');
    await killHard(child);
    const atKill = (await accepted()).length;
    expect(atKill).toBeLessThan(TOTAL);

    child = await startQueue();
    const events = new EventsTail(clients, t);
    await waitFor(
      async () => {
        await events.poll();
        return msgs.every((m) => events.of(m.id, 'message.sent').length > 0);
      },
      60_000,
      'message.sent for every message',
      250,
    );

    const sends = await accepted();
    const perMessage = new Map<string, number>();
    for (const s of sends) {
      const id = String(s.body.biz_opaque_callback_data);
      perMessage.set(id, (perMessage.get(id) ?? 0) + 1);
    }
    const duplicates = [...perMessage].filter(([, n]) => n > 1);
    expect(duplicates).toEqual([]);
    expect(sends).toHaveLength(TOTAL);
    for (const m of msgs) {
      expect(perMessage.get(m.id)).toBe(1);
      const sent = events.of(m.id, 'message.sent');
      expect(sent).toHaveLength(1);
      expect(sent[0].data.provider_message_id).toBe(sends.find((s) => s.body.biz_opaque_callback_data === m.id)?.wamid);
      expect(events.of(m.id, 'message.failed')).toHaveLength(0);
    }
  });
});
