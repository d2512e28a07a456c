// pnpm nats:setup: creates or updates every stream and consumer (a deploy step, idempotent).
import { loadChannelModules } from '@app/config';
import { Topology } from '@app/contracts';
import { DEFAULT_TOPOLOGY_OPTIONS, NatsAuth, NatsClients, setupTopology, TopologyOptions } from '@app/messaging';

export async function setupNats(
  url: string,
  prefix: string,
  overrides: Partial<TopologyOptions> = {},
  auth?: NatsAuth,
): Promise<string[]> {
  const clients = await NatsClients.connect({ url, name: 'nats-setup', auth, prefix });
  try {
    const report = await setupTopology(await clients.jsm(), new Topology(prefix), {
      ...DEFAULT_TOPOLOGY_OPTIONS,
      ...overrides,
    });
    return [
      ...report.streams.map((s) => `stream ${s.name}: ${s.action}`),
      ...report.consumers.map((c) => `consumer ${c.stream}/${c.name}: ${c.action}`),
      ...report.buckets.map((b) => `bucket ${b.name}: ${b.action}`),
    ];
  } finally {
    await clients.drain();
  }
}

if (require.main === module) {
  const url = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
  const replicas = Number(process.env.NATS_STREAM_REPLICAS ?? '1');
  // The channels CHANNEL_MODULES adds get their consumers too, as every registered channel does.
  loadChannelModules(process.env);
  setupNats(url, process.env.NATS_PREFIX ?? '', { replicas })
    .then((lines) => process.stdout.write(`${lines.join('\n')}\n`))
    .catch((err: unknown) => {
      process.stderr.write(`nats:setup failed: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    });
}
