// Priority under load: how long a UTILITY message takes from its acceptance (durable on the service
// stream) to the channel while the queue is working through a marketing backlog of the same
// sender, against the same measure with no backlog, in the same run.
import { NatsClients } from '@app/messaging';
import { outbound, publishOutbound, SandboxWhatsApp } from '../../apps/queue/test/support/dispatch-kit';
import { Bench, median, percentile } from './report';
import { spawnPlatform } from './spawned-platform';

const SENDER = '6000001';
const POLL_MS = 10;

/** Publishes one UTILITY message and waits for the sandbox to receive it: ms from accept to channel. */
async function oneUtility(clients: NatsClients, sandbox: SandboxWhatsApp, t: Parameters<typeof publishOutbound>[1]) {
  const msg = outbound({ sender: SENDER, category: 'UTILITY' });
  const accepted = Date.now();
  await publishOutbound(clients, t, msg);
  const deadline = accepted + 60_000;
  for (;;) {
    const got = await sandbox.sends({ to: msg.recipient });
    if (got.length) return got[0].received_at - accepted;
    if (Date.now() > deadline) throw new Error('a UTILITY message did not reach the channel within 60 s');
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

async function series(n: number, run: () => Promise<number>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    out.push(await run());
    await new Promise((r) => setTimeout(r, 200));
  }
  return out;
}

export const priorityBench: Bench = async (opts) => {
  const backlog = opts.smoke ? 3_000 : 50_000;
  const tries = opts.smoke ? 3 : 20;
  const platform = await spawnPlatform(opts, {
    suite: 'bench_priority',
    services: ['sandbox', 'queue'],
    // Default pacing (80/s per sender): the backlog forms because sends are accepted faster than
    // that. 200 messages in hand per lane, as a throughput setting would have: 2.5 s of this
    // sender's marketing slots already pulled when the UTILITY message arrives.
    env: { CHANNELS: 'whatsapp', QUEUE_CONCURRENCY: '200', SANDBOX_STATUS_DELAY_MS: '600000' },
  });
  const clients = await NatsClients.connect({ url: opts.natsUrl, name: 'bench-priority' });
  const t = platform.infra.topology;
  const sandbox = new SandboxWhatsApp(platform.urls.sandbox);
  try {
    const idle = await series(tries, () => oneUtility(clients, sandbox, t));

    // The marketing backlog, accepted while the queue runs: it pulls and paces as it arrives.
    const marketing = Array.from({ length: backlog }, () => outbound({ sender: SENDER, category: 'MARKETING' }));
    for (let i = 0; i < marketing.length; i += 1000) {
      await Promise.all(marketing.slice(i, i + 1000).map((m) => publishOutbound(clients, t, m)));
    }
    const before = (await sandbox.arrivals()).find((a) => a.phone_number_id === SENDER)?.count ?? 0;
    const loaded = await series(tries, () => oneUtility(clients, sandbox, t));
    const after = (await sandbox.arrivals()).find((a) => a.phone_number_id === SENDER)?.count ?? 0;

    const p99 = percentile(loaded, 99);
    const base = percentile(idle, 99);
    return [
      {
        bench: 'priority',
        figure: `UTILITY message behind a ${backlog}-message marketing backlog of its sender, queue running: accept to channel, p99 of ${tries}`,
        value: p99,
        unit: 'ms',
        baseline: { name: 'the same UTILITY send with no backlog', value: base },
        ratio: Number((p99 / Math.max(1, base)).toFixed(2)),
        detail: {
          p50_ms: median(loaded),
          baseline_p50_ms: median(idle),
          marketing_sent_during_tries: after - before - tries,
          marketing_still_queued: backlog - (after - 2 * tries),
        },
      },
    ];
  } finally {
    await clients.drain();
    await platform.stop();
  }
};
