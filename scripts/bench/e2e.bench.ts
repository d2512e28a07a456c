// End to end: template sends through the public API, over ten sender numbers, until every message's
// DELIVERED status is applied by the api; against the queue alone (queue and sandbox, no callbacks)
// draining the same number of messages published straight onto the outbound stream, same run.
// A second figure: the fastest sender's rate at the channel with three queue replicas against one.
// Knobs: BENCH_E2E_SENDERS (sender numbers, 10), BENCH_E2E_CONNECTIONS (client connections, 50),
// BENCH_E2E_REPLICAS (processes per service, e.g. api:3,gateway:2,webhooks:2,queue:2; one each),
// BENCH_E2E_HISTORY (messages of another user delivered before the run, 50,000, 200 with --smoke; 0: an
// empty database).
import { once } from 'node:events';
import { Client } from 'pg';
import { NatsClients } from '@app/messaging';
import { spawnTs } from '@app/testing';
import { outbound, publishOutbound, SandboxWhatsApp } from '../../apps/queue/test/support/dispatch-kit';
import { apiClient, connectSandboxApp, ensureApprovedTemplate, TEMPLATE } from '../seed';
import { Bench, BenchFigure, BenchOptions, commandCpuMs, commandWriteSyscalls, machineCpuMs } from './report';
import { keepAliveClient } from './http-load';
import { SpawnedPlatform, spawnPlatform } from './spawned-platform';
import { parseReplicas, Replicas, ServiceName } from '../../test/support/platform-env';

const RATE = 200;
/** Unique recipients per app: under the default tier's 250, so no send is refused for the tier. */
const RECIPIENTS_PER_APP = 240;
/** Scale-out: two senders at a rate the sandbox can exceed on a 2-core machine. */
const SCALE_SENDERS = 2;
const SCALE_RATE = 50;
const QUEUE_ENV = {
  CHANNELS: 'whatsapp',
  QUEUE_WHATSAPP_RATE_PER_SENDER: String(RATE),
  QUEUE_CONCURRENCY: '200',
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The run's shape: sender numbers (each paced at RATE), client connections, processes per service. */
interface Shape {
  senders: number;
  connections: number;
  replicas: Replicas;
  /** Messages delivered before the run (another user's), with their holds, timeline steps and charges. */
  history: number;
}

function shapeFromEnv(smoke: boolean): Shape {
  const count = (name: string, fallback: number, max: number) => {
    const n = Number(process.env[name] ?? fallback);
    if (!Number.isInteger(n) || n < 1 || n > max) throw new Error(`${name} must be a whole number from 1 to ${max}`);
    return n;
  };
  return {
    senders: count('BENCH_E2E_SENDERS', 10, 99),
    connections: count('BENCH_E2E_CONNECTIONS', 50, 1000),
    replicas: parseReplicas(process.env.BENCH_E2E_REPLICAS),
    history: process.env.BENCH_E2E_HISTORY === '0' ? 0 : count('BENCH_E2E_HISTORY', smoke ? 200 : 50_000, 10_000_000),
  };
}

/** `api:3, gateway:2` for the services run as several processes; empty when each runs once. */
const replicasLabel = (r: Replicas) =>
  Object.entries(r)
    .filter(([, n]) => n > 1)
    .map(([name, n]) => `${name}:${n}`)
    .join(', ');

/** Recipient `i` of app `a`; ending in 1111, the sandbox reports sent then delivered. */
const recipient = (a: number, i: number) => `7${String(a).padStart(2, '0')}${String(i).padStart(4, '0')}1111`;

type CpuUse = Partial<Record<ServiceName, number>>;

/** Each service's use per message between two readings (CPU milliseconds, say), e.g. `api 7.1, queue 2.3`. */
function perMessage(before: CpuUse, after: CpuUse, n: number, digits = 2): string {
  return Object.entries(after)
    .map(([name, ms]) => `${name} ${((ms - (before[name as ServiceName] ?? 0)) / n).toFixed(digits)}`)
    .join(', ');
}

/** The whole machine's busy CPU milliseconds per message since `before` (every process: the services, PostgreSQL, NATS, the bench). */
function machinePerMessage(before: number, n: number): number {
  return Number(((machineCpuMs() - before) / n).toFixed(2));
}

/** The infrastructure's CPU, PostgreSQL's (every backend) and NATS's, for `infraPerMessage`. */
function infraCpuMs(): { postgres: number; nats: number } {
  return { postgres: commandCpuMs('postgres'), nats: commandCpuMs('nats-server') };
}

/** PostgreSQL's and NATS's CPU milliseconds per message since `before`, e.g. `postgres 1.20, nats 0.40`. */
function infraPerMessage(before: { postgres: number; nats: number }, n: number): string {
  const after = infraCpuMs();
  return `postgres ${((after.postgres - before.postgres) / n).toFixed(2)}, nats ${((after.nats - before.nats) / n).toFixed(2)}`;
}

/** Runs an operator CLI command of the stack and returns its JSON answer. */
async function cli(env: Record<string, string>, args: string[]): Promise<Record<string, string>> {
  const child = spawnTs('scripts/cli.ts', env, [...args, '--json']);
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const [code] = (await once(child, 'exit')) as [number];
  if (code !== 0) throw new Error(`cli ${args[0]} exited with ${code}: ${err.slice(-500)}`);
  return JSON.parse(out.trim().split('\n').pop() ?? '{}') as Record<string, string>;
}

/** Accepted sends across every sender of the sandbox. */
async function arrivedTotal(sandbox: SandboxWhatsApp, senders: string[]): Promise<number> {
  return (await sandbox.arrivals()).filter((a) => senders.includes(a.phone_number_id)).reduce((n, a) => n + a.count, 0);
}

/** Publishes `n` outbound messages over `senders` and waits until the sandbox has them all: msg/s and per-sender peak. */
async function drain(platform: SpawnedPlatform, opts: BenchOptions, n: number, senders: string[]) {
  const clients = await NatsClients.connect({ url: opts.natsUrl, name: 'bench-e2e-drain' });
  const sandbox = new SandboxWhatsApp(platform.urls.sandbox);
  try {
    const started = Date.now();
    const msgs = Array.from({ length: n }, (_, k) =>
      outbound({
        sender: senders[k % senders.length],
        category: 'UTILITY',
        recipient: recipient(90 + (k % senders.length), Math.floor(k / senders.length) % RECIPIENTS_PER_APP),
      }),
    );
    for (let i = 0; i < n; i += 1000) {
      await Promise.all(msgs.slice(i, i + 1000).map((m) => publishOutbound(clients, platform.infra.topology, m)));
    }
    while ((await arrivedTotal(sandbox, senders)) < n) {
      if (Date.now() - started > 600_000) throw new Error('the queue did not drain within 10 minutes');
      await sleep(100);
    }
    const arrivals = (await sandbox.arrivals()).filter((a) => senders.includes(a.phone_number_id));
    const last = Math.max(...arrivals.map((a) => a.last_at));
    return {
      perSecond: n / ((last - started) / 1000),
      /** The fastest sender's average rate at the channel over the whole run, and its busiest second. */
      senderRate: Math.max(...arrivals.map((a) => ((a.count - 1) * 1000) / Math.max(1, a.last_at - a.first_at))),
      peak: Math.max(...arrivals.map((a) => a.max_per_second)),
    };
  } finally {
    await clients.drain();
  }
}

/** Sends `n` templates over the apps with `connections` concurrent clients; the time of the first request. */
async function sendAll(
  apiUrl: string,
  token: string,
  appIds: number[],
  n: number,
  connections: number,
): Promise<number> {
  const client = keepAliveClient(apiUrl, connections);
  const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
  let next = 0;
  const started = Date.now();
  const worker = async () => {
    for (let k = next++; k < n; k = next++) {
      const a = k % appIds.length;
      const body = JSON.stringify({
        phone: recipient(a, Math.floor(k / appIds.length) % RECIPIENTS_PER_APP),
        type: 'TEMPLATE',
        template: { name: TEMPLATE.name, components: { body: { values: ['Anna', String(k)] } } },
      });
      const res = await client.send(
        { method: 'POST', path: `/api/v1/wa/apps/${appIds[a]}/messages`, headers, body },
        true,
      );
      if (res.status !== 201) throw new Error(`send ${k} answered ${res.status}: ${res.body}`);
    }
  };
  try {
    await Promise.all(Array.from({ length: connections }, worker));
  } finally {
    client.close();
  }
  return started;
}

/**
 * A database as one that has been in use: `n` messages of `userId`, delivered over the last 30 days,
 * each with its captured hold, its three timeline steps and its charge, and statistics taken
 * (autovacuum's ANALYZE, which a database in use has run). A run on an empty database measures
 * its first minute instead: the plans PostgreSQL keeps for the services' prepared statements are
 * made for empty tables (sequential scans), and nothing corrects them until an ANALYZE, which
 * autovacuum runs only after its naptime (a minute), longer than a run.
 */
async function seedHistory(databaseUrl: string, userId: string, n: number): Promise<void> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    for (let from = 1; from <= n; from += 100_000) {
      await db.query(
        `WITH m AS (
           INSERT INTO api.messages (id, user_id, channel, recipient, kind, category, priority, status,
                                     provider_message_id, price, currency, created_at, updated_at,
                                     billed_category, pricing_type, charged)
           SELECT gen_random_uuid()::text, u.id, 'whatsapp', '7998' || lpad((g % 200000)::text, 7, '0'),
                  'TEMPLATE', 'UTILITY', 'service', 'DELIVERED', 'wamid.history.' || g, 0.02, u.currency,
                  t.at, t.at, 'UTILITY', 'regular', 0.02
             FROM api.users u, generate_series($2::int, $3::int) g,
                  LATERAL (SELECT now() - interval '30 days' + g * (interval '30 days' / $4) AS at) t
            WHERE u.id = $1
           RETURNING id, user_id, recipient, currency, created_at
         ), h AS (
           INSERT INTO api.holds (message_id, user_id, amount, currency, status, created_at, settled_at)
           SELECT id, user_id, 0.02, currency, 'CAPTURED', created_at, created_at + interval '1 second' FROM m
         ), e AS (
           INSERT INTO api.message_events (message_id, status, occurred_at, recorded_at)
           SELECT m.id, s.status, extract(epoch FROM m.created_at)::bigint + s.k, m.created_at + s.k * interval '1 second'
             FROM m, (VALUES ('QUEUED', 0), ('SENT', 1), ('DELIVERED', 2)) AS s(status, k)
         )
         INSERT INTO api.transactions (id, user_id, amount, currency, status, category, recipient_phone, message_id,
                                       created_at, assumed_category, pricing_type)
         SELECT gen_random_uuid(), user_id, -0.02, currency, 'DELIVERED', 'UTILITY', recipient, id, created_at,
                'UTILITY', 'regular'
           FROM m`,
        [userId, from, Math.min(n, from + 99_999), n],
      );
    }
    await db.query('ANALYZE');
  } finally {
    await db.end();
  }
}

/** Waits until `n` messages of `userId` are DELIVERED (or READ) in the api: the time the last one was applied. */
async function lastDelivered(databaseUrl: string, userId: string, n: number): Promise<number> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const deadline = Date.now() + 600_000;
    for (;;) {
      const { rows } = await db.query<{ done: string; last: number }>(
        `SELECT count(*) AS done, extract(epoch FROM max(updated_at)) * 1000 AS last
           FROM api.messages WHERE user_id = $1 AND status IN ('DELIVERED', 'READ')`,
        [userId],
      );
      if (Number(rows[0].done) >= n) return Number(rows[0].last);
      if (Date.now() > deadline) throw new Error(`only ${rows[0].done} of ${n} messages DELIVERED after 10 minutes`);
      await sleep(200);
    }
  } finally {
    await db.end();
  }
}

/**
 * Where a message's time went, from the api's timeline (each step's time is that of the transaction
 * that recorded it): accept to SENT applied (the relay, the queue, the channel call, the sandbox's
 * status delay, the callback through the gateway to the api) and SENT to DELIVERED applied (the
 * sandbox's delay again and one more callback), p50 / p90 / p99 in milliseconds.
 */
async function statusLatency(databaseUrl: string, userId: string): Promise<string> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query<{ step: string; p50: number; p90: number; p99: number }>(
      `WITH t AS (
         SELECT q.recorded_at AS queued, s.recorded_at AS sent, d.recorded_at AS delivered
           FROM api.message_events q
           JOIN api.message_events s ON s.message_id = q.message_id AND s.status = 'SENT'
           JOIN api.message_events d ON d.message_id = q.message_id AND d.status = 'DELIVERED'
           JOIN api.messages m ON m.id = q.message_id AND m.user_id = $1
          WHERE q.status = 'QUEUED'
       ), steps AS (
         SELECT 'accept to SENT' AS step, extract(epoch FROM sent - queued) * 1000 AS ms FROM t
         UNION ALL SELECT 'SENT to DELIVERED', extract(epoch FROM delivered - sent) * 1000 FROM t
       )
       SELECT step, percentile_disc(0.5) WITHIN GROUP (ORDER BY ms) AS p50,
              percentile_disc(0.9) WITHIN GROUP (ORDER BY ms) AS p90,
              percentile_disc(0.99) WITHIN GROUP (ORDER BY ms) AS p99
         FROM steps GROUP BY step ORDER BY step`,
      [userId],
    );
    return rows.map((r) => `${r.step} ${Math.round(r.p50)} / ${Math.round(r.p90)} / ${Math.round(r.p99)}`).join(', ');
  } finally {
    await db.end();
  }
}

/**
 * Baseline: the queue alone (with the sandbox, no status callbacks) draining `n` messages of as many
 * senders at the same pacing, published straight onto the service stream.
 */
async function queueAlone(opts: BenchOptions, n: number, shape: Shape) {
  const platform = await spawnPlatform(opts, {
    suite: 'bench_e2e_queue',
    services: ['sandbox', 'queue'],
    env: { ...QUEUE_ENV, SANDBOX_STATUS_DELAY_MS: '600000' },
    replicas: { queue: shape.replicas.queue ?? 1 },
  });
  try {
    const before = platform.cpuMs();
    const machineBefore = machineCpuMs();
    const drained = await drain(
      platform,
      opts,
      n,
      Array.from({ length: shape.senders }, (_, i) => `${7_000_001 + i}`),
    );
    const cpuPerMessage = perMessage(before, platform.cpuMs(), n);
    return { ...drained, cpuPerMessage, machinePerMessage: machinePerMessage(machineBefore, n) };
  } finally {
    await platform.stop();
  }
}

/** The API's sends to DELIVERED over every service, against the queue alone draining as many messages. */
async function endToEnd(opts: BenchOptions, n: number, shape: Shape): Promise<BenchFigure[]> {
  const oneQueue = await queueAlone(opts, n, shape);
  const platform = await spawnPlatform(opts, {
    suite: 'bench_e2e',
    services: ['sandbox', 'webhooks', 'gateway', 'queue', 'api'],
    env: {
      ...QUEUE_ENV,
      RATE_LIMIT_PER_SECOND: '1000000',
      RATE_LIMIT_BURST: '1000000',
      SANDBOX_MODERATION_DELAY_MS: '100',
    },
    replicas: shape.replicas,
  });
  try {
    const user = await cli(platform.env, ['users:create', '--name', 'bench e2e']);
    await cli(platform.env, ['balance:credit', '--user', user.user_id, '--amount', '1000000']);
    const api = apiClient(platform.urls.api, user.token);
    const appIds: number[] = [];
    for (let i = 0; i < shape.senders; i++) {
      const appId = await connectSandboxApp(
        platform.urls.api,
        api,
        `bench ${i}`,
        `1555100${String(i).padStart(4, '0')}`,
      );
      await ensureApprovedTemplate(api, appId, TEMPLATE);
      appIds.push(appId);
    }
    if (shape.history > 0) {
      const past = await cli(platform.env, ['users:create', '--name', 'bench e2e history']);
      await seedHistory(platform.infra.databaseUrl, past.user_id, shape.history);
    }
    const cpuBefore = platform.cpuMs();
    const replicaCpuBefore = platform.replicaCpuMs();
    const balancedBefore = balancerCounts(platform);
    const writesBefore = platform.writes();
    const natsWritesBefore = commandWriteSyscalls('nats-server');
    const machineBefore = machineCpuMs();
    const infraBefore = infraCpuMs();
    const benchBefore = process.cpuUsage();
    const first = await sendAll(platform.urls.api, user.token, appIds, n, shape.connections);
    const accepted = Date.now();
    const last = await lastDelivered(platform.infra.databaseUrl, user.user_id, n);
    const latency = await statusLatency(platform.infra.databaseUrl, user.user_id);
    const value = n / ((last - first) / 1000);
    const cpuPerMessage = perMessage(cpuBefore, platform.cpuMs(), n);
    const replicaCpuPerMessage = perMessage(replicaCpuBefore, platform.replicaCpuMs(), n);
    const balanced = balancedSince(platform, balancedBefore);
    const writesPerMessage = `${perMessage(writesBefore, platform.writes(), n, 1)}, nats-server ${((commandWriteSyscalls('nats-server') - natsWritesBefore) / n).toFixed(1)}`;
    const machineMs = machinePerMessage(machineBefore, n);
    const infraMs = infraPerMessage(infraBefore, n);
    const bench = process.cpuUsage(benchBefore);
    const benchMs = Number(((bench.user + bench.system) / 1000 / n).toFixed(2));
    // Callbacks the sandbox had to send again (a gateway too busy to answer within its timeout).
    const callbacks = await new SandboxWhatsApp(platform.urls.sandbox).webhookCounts();
    const replicated = replicasLabel(shape.replicas);
    return [
      {
        bench: 'e2e',
        figure: `${n} template sends over ${shape.senders} sender numbers (${RATE}/s each)${replicated ? ` with replicas ${replicated}` : ''}: first accept to last DELIVERED applied`,
        value: Math.round(value),
        unit: 'msg/s',
        baseline: {
          name: `the queue alone draining ${n} messages published onto the outbound stream to the sandbox`,
          value: Math.round(oneQueue.perSecond),
        },
        ratio: Number((value / oneQueue.perSecond).toFixed(2)),
        detail: {
          accepted_per_second: Math.round(n / ((accepted - first) / 1000)),
          // The last DELIVERED applied after the last accept, and each message's steps (p50 / p90 / p99).
          tail_after_last_accept_ms: Math.round(last - accepted),
          status_latency_ms: latency,
          connections: shape.connections,
          // Messages already in the database, delivered before the run (another user's).
          history_messages: shape.history,
          pacing_cap_per_second: shape.senders * RATE,
          // Where the machine's CPU goes: each service's milliseconds per message, first send to last DELIVERED.
          service_cpu_ms_per_message: cpuPerMessage,
          queue_alone_cpu_ms_per_message: oneQueue.cpuPerMessage,
          machine_cpu_ms_per_message: machineMs,
          infrastructure_cpu_ms_per_message: infraMs,
          // The bench's own process: the 50 clients and the wait for the last DELIVERED.
          bench_client_cpu_ms_per_message: benchMs,
          // Socket writes per message (each a system call: to NATS, PostgreSQL, the channel, a client).
          write_syscalls_per_message: writesPerMessage,
          // Each service's largest resident set over the run, in MiB (with SERVICE_NODE_FLAGS, as deployed).
          peak_rss_mib: Object.entries(platform.peakRssMib())
            .map(([name, mib]) => `${name} ${mib}`)
            .join(', '),
          callbacks: callbacks.total,
          callback_attempts: callbacks.attempts,
          queue_alone_machine_cpu_ms_per_message: oneQueue.machinePerMessage,
          ...(replicated
            ? {
                replicas: replicated,
                // Each process's CPU milliseconds per message (`api#0`: the first api replica); the
                // balancers run in the bench's process and count in bench_client_cpu_ms_per_message.
                replica_cpu_ms_per_message: replicaCpuPerMessage,
                // Requests each replica was given by its balancer over the run (api: the sends; gateway: the callbacks).
                balanced_requests: balanced,
              }
            : {}),
        },
      },
    ];
  } finally {
    await platform.stop();
  }
}

/**
 * One sender's rate at the channel with three queue replicas against one. The rate is set below what
 * the sandbox can take on this machine, so that unshared pacing would show as a higher rate.
 */
async function scaleOut(opts: BenchOptions, n: number): Promise<BenchFigure[]> {
  const platform = await spawnPlatform(opts, {
    suite: 'bench_scale_out',
    services: ['sandbox', 'queue'],
    env: { ...QUEUE_ENV, QUEUE_WHATSAPP_RATE_PER_SENDER: String(SCALE_RATE), SANDBOX_STATUS_DELAY_MS: '600000' },
  });
  const senders = (base: number) => Array.from({ length: SCALE_SENDERS }, (_, i) => `${base + i}`);
  try {
    const one = await drain(platform, opts, Math.ceil(n / 5), senders(8_000_001));
    await platform.addQueueReplicas(2);
    const three = await drain(platform, opts, n, senders(8_100_001));
    return [
      {
        bench: 'e2e',
        figure: `scale-out: the fastest sender's rate at the channel (configured ${SCALE_RATE}/s), 3 queue replicas, ${n} messages over ${SCALE_SENDERS} senders`,
        value: Number(three.senderRate.toFixed(1)),
        unit: 'msg/s',
        baseline: {
          name: `the same with 1 queue replica (${Math.ceil(n / 5)} messages)`,
          value: Number(one.senderRate.toFixed(1)),
        },
        ratio: Number((three.senderRate / one.senderRate).toFixed(2)),
        detail: {
          configured_rate: SCALE_RATE,
          busiest_second_3_replicas: three.peak,
          busiest_second_1_replica: one.peak,
        },
      },
    ];
  } finally {
    await platform.stop();
  }
}

/** Requests each balancer has given each of its replicas so far. */
function balancerCounts(platform: SpawnedPlatform): Record<string, number[]> {
  return Object.fromEntries(Object.entries(platform.balancers).map(([name, b]) => [name, b.counts()]));
}

/** Requests each balanced service's replicas were given since `before`, e.g. `api 5000/5000, gateway 2500/2500`. */
function balancedSince(platform: SpawnedPlatform, before: Record<string, number[]>): string {
  return Object.entries(balancerCounts(platform))
    .map(([name, counts]) => `${name} ${counts.map((c, i) => c - (before[name]?.[i] ?? 0)).join('/')}`)
    .join(', ');
}

export const e2eBench: Bench = async (opts) => {
  const n = Number(process.env.BENCH_E2E_MESSAGES ?? (opts.smoke ? 200 : 10_000));
  const figures = await endToEnd(opts, n, shapeFromEnv(opts.smoke));
  if (process.env.BENCH_E2E_SCALE_OUT === '0') return figures;
  return [...figures, ...(await scaleOut(opts, opts.smoke ? 100 : 10_000))];
};
