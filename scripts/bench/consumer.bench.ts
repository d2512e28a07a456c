// Throughput of the durable consumer paths: the platform's priority runner against the client
// library's own consume() loop, measured in the same run.
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Topology } from '@app/contracts';
import {
  ConsumerRunner,
  DEFAULT_TOPOLOGY_OPTIONS,
  deleteTopology,
  NatsClients,
  publishDurable,
  setupTopology,
} from '@app/messaging';
import { Bench, median } from './report';

let N = Number(process.env.BENCH_MESSAGES ?? 5000);

async function fill(clients: NatsClients, t: Topology, subject: string, n: number): Promise<void> {
  const body = { text: 'x'.repeat(200) };
  for (let i = 0; i < n; i += 500) {
    await Promise.all(
      Array.from({ length: Math.min(500, n - i) }, (_, k) =>
        publishDurable(clients.js, subject, body, `${subject}-${i + k}`),
      ),
    );
  }
}

/** Baseline: the client library's own consume() loop on one consumer. */
async function libraryConsume(clients: NatsClients, t: Topology): Promise<number> {
  await fill(clients, t, t.outboundSubject('service', 'telegram'), N);
  const consumer = await clients.js.consumers.get(
    t.outboundStream('service'),
    t.outboundConsumer('service', 'telegram'),
  );
  const start = performance.now();
  const messages = await consumer.consume({ max_messages: 100 });
  let seen = 0;
  for await (const m of messages) {
    await m.ackAck();
    if (++seen === N) break;
  }
  await messages.close();
  return performance.now() - start;
}

/** The platform's runner: priority across two consumers, no_wait pulls, confirmed acks. */
async function priorityRunner(clients: NatsClients, t: Topology): Promise<number> {
  await fill(clients, t, t.outboundSubject('marketing', 'whatsapp'), N);
  let seen = 0;
  let done!: () => void;
  const finished = new Promise<void>((r) => (done = r));
  const runner = new ConsumerRunner(clients.nc, clients.js, {
    sources: (['service', 'marketing'] as const).map((p) => ({
      stream: t.outboundStream(p),
      consumer: t.outboundConsumer(p, 'whatsapp'),
      maxDeliver: 10,
    })),
    handler: async () => {
      if (++seen === N) done();
    },
    deadLetterSubject: (s) => t.deadLetterSubject(s.stream, s.consumer),
    batch: 100,
  });
  const start = performance.now();
  runner.start();
  await finished;
  const elapsed = performance.now() - start;
  await runner.stop();
  return elapsed;
}

export const consumerBench: Bench = async (opts) => {
  N = opts.smoke ? 500 : N;
  const clients = await NatsClients.connect({ url: opts.natsUrl, name: 'bench' });
  // A fresh topology per measurement: a closed consume() leaves pulled messages waiting out their
  // ack timer, which would slow whatever runs next on the same consumer.
  const fresh = async <T>(fn: (t: Topology) => Promise<T>): Promise<T> => {
    const t = new Topology(`bench${randomBytes(3).toString('hex')}`);
    await setupTopology(await clients.jsm(), t, { ...DEFAULT_TOPOLOGY_OPTIONS, storage: 'memory' });
    try {
      return await fn(t);
    } finally {
      await deleteTopology(await clients.jsm(), t);
    }
  };
  try {
    const rounds = opts.smoke ? 1 : Number(process.env.BENCH_ROUNDS ?? 3);
    const base: number[] = [];
    const ours: number[] = [];
    for (let r = 0; r < rounds; r++) {
      base.push(await fresh((t) => libraryConsume(clients, t)));
      ours.push(await fresh((t) => priorityRunner(clients, t)));
    }
    const b = N / (median(base) / 1000);
    const o = N / (median(ours) / 1000);
    return [
      {
        bench: 'consumer',
        figure: `priority runner throughput (two consumers, no_wait pulls, confirmed acks), ${N} messages, median of ${rounds}`,
        value: Math.round(o),
        unit: 'msg/s',
        baseline: { name: 'client library consume() on one consumer', value: Math.round(b) },
        ratio: Number((o / b).toFixed(2)),
      },
    ];
  } finally {
    await clients.drain();
  }
};
