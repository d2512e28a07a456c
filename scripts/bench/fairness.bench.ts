// Fairness across senders: how long the messages of senders with nothing queued take from their
// acceptance (durable on the service stream) to the channel while one sender of the same channel
// and lane works off a backlog at its number's rate, against the same measure with no backlog, in
// the same run; and the rate at which the backlog drains meanwhile.
import { NatsClients } from '@app/messaging';
import { outbound, publishOutbound, SandboxWhatsApp } from '../../apps/queue/test/support/dispatch-kit';
import { Bench, median, percentile } from './report';
import { spawnPlatform } from './spawned-platform';

const BUSY = '6100001';
const OTHERS = Array.from({ length: 9 }, (_, i) => String(6200001 + i));
/** The queue's default pace of a WhatsApp number (QUEUE_WHATSAPP_RATE_PER_SENDER). */
const RATE = 80;
const POLL_MS = 20;

type Topo = Parameters<typeof publishOutbound>[1];

/**
 * Each of the other senders sends one UTILITY message a second for `seconds`; answers each
 * message's time from its acceptance to the sandbox receiving it (ms).
 */
async function others(clients: NatsClients, sandbox: SandboxWhatsApp, t: Topo, seconds: number): Promise<number[]> {
  const accepted = new Map<string, number>();
  const latencies: number[] = [];
  const seen = new Map<string, number>();
  let publishing = true;
  const sending = (async () => {
    for (let s = 0; s < seconds; s++) {
      const tick = Date.now();
      await Promise.all(
        OTHERS.map(async (sender, i) => {
          // Spread over the second, as independent senders would be.
          await new Promise((r) => setTimeout(r, (i * 1000) / OTHERS.length));
          const msg = outbound({ sender, category: 'UTILITY' });
          await publishOutbound(clients, t, msg);
          accepted.set(msg.recipient, Date.now());
        }),
      );
      await new Promise((r) => setTimeout(r, Math.max(0, 1000 - (Date.now() - tick))));
    }
    publishing = false;
  })();
  const deadline = () => Date.now() > lastPublish + 60_000;
  let lastPublish = Date.now();
  while (publishing || accepted.size > 0) {
    if (publishing) lastPublish = Date.now();
    else if (deadline()) throw new Error(`${accepted.size} messages of idle senders did not reach the channel in 60 s`);
    const counts = await sandbox.arrivals();
    for (const a of counts) {
      if (!OTHERS.includes(a.phone_number_id) || seen.get(a.phone_number_id) === a.count) continue;
      seen.set(a.phone_number_id, a.count);
      for (const s of await sandbox.sends({ phone_number_id: a.phone_number_id })) {
        const at = accepted.get(s.body.to);
        if (at === undefined) continue;
        latencies.push(s.received_at - at);
        accepted.delete(s.body.to);
      }
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  await sending;
  return latencies;
}

export const fairnessBench: Bench = async (opts) => {
  const backlog = opts.smoke ? 3_000 : 100_000;
  const seconds = opts.smoke ? 5 : Math.max(30, opts.seconds);
  const platform = await spawnPlatform(opts, {
    suite: 'bench_fairness',
    services: ['sandbox', 'queue'],
    env: {
      CHANNELS: 'whatsapp',
      QUEUE_WHATSAPP_RATE_PER_SENDER: String(RATE),
      SANDBOX_STATUS_DELAY_MS: '600000',
    },
  });
  const clients = await NatsClients.connect({ url: opts.natsUrl, name: 'bench-fairness' });
  const t = platform.infra.topology;
  const sandbox = new SandboxWhatsApp(platform.urls.sandbox);
  const busyCount = async () => (await sandbox.arrivals()).find((a) => a.phone_number_id === BUSY);
  try {
    const idle = await others(clients, sandbox, t, seconds);

    // The backlog, accepted while the queue runs: far more than the number can send in the run.
    const started = Date.now();
    for (let i = 0; i < backlog; i += 1000) {
      const batch = Array.from({ length: Math.min(1000, backlog - i) }, () =>
        outbound({ sender: BUSY, category: 'UTILITY' }),
      );
      await Promise.all(batch.map((m) => publishOutbound(clients, t, m)));
    }
    const publishedMs = Date.now() - started;
    // Measured once the queue has looked at the whole backlog (every message in hand or waiting on
    // the stream for its turn): a backlog published faster than that is looked through first.
    const jsm = await clients.jsm();
    const consumer = () => jsm.consumers.info(t.outboundStream('service'), t.outboundConsumer('service', 'whatsapp'));
    while ((await consumer()).num_pending > 0) await new Promise((r) => setTimeout(r, 50));
    const lookedThroughMs = Date.now() - started;
    const before = (await busyCount())?.count ?? 0;
    const from = Date.now();
    const loaded = await others(clients, sandbox, t, seconds);
    const busy = await busyCount();
    const drained = (busy?.count ?? 0) - before;
    const drainRate = drained / ((Date.now() - from) / 1000);

    const p99 = percentile(loaded, 99);
    const base = percentile(idle, 99);
    return [
      {
        bench: 'fairness',
        figure: `9 senders at 1 message/s each while another sender of the channel works off a ${backlog}-message backlog at ${RATE}/s: accept to channel, p99 of ${loaded.length}`,
        value: p99,
        unit: 'ms',
        baseline: { name: 'the same sends with no backlog', value: base },
        ratio: Number((p99 / Math.max(1, base)).toFixed(2)),
        detail: {
          p99_over_baseline_ms: p99 - base,
          p50_ms: median(loaded),
          baseline_p50_ms: median(idle),
          max_ms: Math.max(...loaded),
          backlog_published_in_ms: publishedMs,
          backlog_looked_through_in_ms: lookedThroughMs,
          backlog_rate_at_channel_per_s: Number(drainRate.toFixed(1)),
          backlog_busiest_second: busy?.max_per_second ?? 0,
          backlog_still_queued: backlog - (busy?.count ?? 0),
        },
      },
    ];
  } finally {
    await clients.drain();
    await platform.stop();
  }
};
