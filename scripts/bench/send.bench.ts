// Accepted template sends per second through the api's POST /api/v1/wa/apps/{id}/messages: one app,
// one user, 50 connections, against a bare Fastify + pg + JetStream server doing the essential work
// (token lookup by hash, conditional hold, message and hold rows in one transaction, publish with
// Nats-Msg-Id), measured in the same run; then the same with 1,000,000 template messages of the app
// in the last 24 hours; then the gateway's POST /v1/messages (an account linked to the same app,
// the same template and recipients) against the api's own send, in turns in the same run, with the
// CPU each service spends per accepted send. The services run built (node dist/...), and the api's
// peak RSS is reported.
import { ChildProcess, fork } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { Topology } from '@app/contracts';
import { hashToken } from '@app/auth';
import { migrateSchema } from '@app/database';
import { DEFAULT_TOPOLOGY_OPTIONS, deleteTopology, NatsClients, publishDurable, setupTopology } from '@app/messaging';
import { createDataSource } from '@app/database';
import { gatewaySchema } from '../../apps/gateway/src/database/schema';
import { AccountsRepository } from '../../apps/gateway/src/accounts/accounts.repository';
import { ApiFactory } from '../../test/support/factories';
import { LoadResult, totalLoad as total } from './http-load';
import { build, freePort, load, peakRssMiB, startBuilt, stop, waitReady, withDatabase } from './built-services';
import { OtlpReceiver } from '../../test/support/otlp-receiver';
import { Bench, cpuMs } from './report';

let SEEDED_MESSAGES = 1_000_000;
/** Recipients the seeded messages went to, and the pool the bench sends to (half of them seeded). */
const SEEDED_RECIPIENTS = 50_000;
const BENCH_RECIPIENTS = 40_000;
const phone = (i: number) => `4470${String(i).padStart(8, '0')}`;

// ---------------------------------------------------------------------------------------------
// The baseline: the essential work of an accepted send and nothing else, in its own process.

async function baselineServer(): Promise<void> {
  const { default: Fastify } = await import('fastify');
  const env = process.env as Record<string, string>;
  const pool = new Pool({ connectionString: env.BENCH_DATABASE_URL, max: 10, options: '-c search_path=api' });
  const clients = await NatsClients.connect({ url: env.BENCH_NATS_URL, name: 'bench-baseline' });
  const topology = new Topology(env.BENCH_PREFIX);
  const subject = topology.outboundSubject('service', 'whatsapp');
  const app = Fastify({ logger: false });
  app.get('/healthz', async () => ({ ok: true }));
  app.post('/send', async (req, reply) => {
    const token = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? '';
    const users = await pool.query<{ user_id: string }>(
      `SELECT user_id FROM api_tokens WHERE token_hash = $1 AND revoked_at IS NULL`,
      [hashToken(token)],
    );
    if (!users.rows[0]) return reply.code(401).send({ title: 'Unauthorized' });
    const userId = users.rows[0].user_id;
    const { phone: recipient } = req.body as { phone: string };
    const id = randomUUID();
    const price = 0.02;
    const db = await pool.connect();
    try {
      await db.query('BEGIN');
      const held = await db.query(
        `UPDATE balances SET available = available - $2, held = held + $2 WHERE user_id = $1 AND available >= $2 RETURNING currency`,
        [userId, price],
      );
      if (!held.rows[0]) {
        await db.query('ROLLBACK');
        return reply.code(422).send({ title: 'Insufficient balance' });
      }
      await db.query(
        `INSERT INTO messages (id, user_id, app_id, channel, recipient, kind, category, priority, status, price, currency)
         VALUES ($1, $2, $3, 'whatsapp', $4, 'TEMPLATE', 'UTILITY', 'service', 'QUEUED', $5, $6)`,
        [id, userId, Number(env.BENCH_APP_ID), recipient, price, held.rows[0].currency],
      );
      await db.query(
        `INSERT INTO holds (message_id, user_id, amount, currency, status) VALUES ($1, $2, $3, $4, 'HELD')`,
        [id, userId, price, held.rows[0].currency],
      );
      await db.query('COMMIT');
    } catch (err) {
      await db.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      db.release();
    }
    await publishDurable(clients.js, subject, { id, recipient, template: { name: 'bench_tpl' } }, id);
    return reply.code(201).send({ message: { id } });
  });
  await app.listen({ port: Number(env.BENCH_PORT), host: '127.0.0.1' });
}

if (require.main === module && process.env.BENCH_BASELINE_SERVER === '1') {
  baselineServer().catch((err: unknown) => {
    process.stderr.write(`baseline server failed: ${String(err)}\n`);
    process.exit(1);
  });
}

// ---------------------------------------------------------------------------------------------

/** One user with one app and its template: the sender of one measured case. */
interface Sender {
  appId: number;
  userId: string;
  auth: string;
}

interface Fixture {
  databaseUrl: string;
  prefix: string;
  /** The app with no messages today (also the baseline's sender). */
  fresh: Sender;
  /** The app with SEEDED_MESSAGES template messages in the last 24 hours. */
  busy: Sender;
  pool: Pool;
}

/**
 * A gateway account of the fresh sender's user with its WhatsApp app linked (through the gateway's
 * own POST /v1/connections), so that its sends use the same app, template and balance.
 */
async function gatewayAccount(f: Fixture, gatewayUrl: string): Promise<string> {
  const ds = createDataSource(f.databaseUrl, gatewaySchema, 1);
  await ds.initialize();
  try {
    const { token } = await new AccountsRepository(ds).createAccount('bench', f.fresh.userId);
    const res = await fetch(`${gatewayUrl}/v1/connections`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ channel: 'whatsapp', app_id: f.fresh.appId }),
    });
    if (res.status !== 201)
      throw new Error(`linking the app to the gateway account: ${res.status} ${await res.text()}`);
    return `Bearer ${token}`;
  } finally {
    await ds.destroy();
  }
}

async function setUp(opts: { databaseUrl: string; natsUrl: string }, clients: NatsClients): Promise<Fixture> {
  const id = randomBytes(3).toString('hex');
  const dbName = `bench_send_${id}`;
  const admin = new Pool({ connectionString: opts.databaseUrl, max: 1 });
  await admin.query(`CREATE DATABASE "${dbName}"`);
  await admin.end();
  const databaseUrl = withDatabase(opts.databaseUrl, dbName);
  const { apiSchema } = await import('../../apps/api/src/database/schema');
  await migrateSchema(databaseUrl, apiSchema);
  await migrateSchema(databaseUrl, gatewaySchema);
  const prefix = `bsend${id}`;
  await setupTopology(await clients.jsm(), new Topology(prefix), DEFAULT_TOPOLOGY_OPTIONS);
  const pool = new Pool({ connectionString: databaseUrl, max: 2, options: '-c search_path=api' });
  const factory = await ApiFactory.connect(databaseUrl);
  const sender = async (): Promise<Sender> => {
    const user = await factory.user('system', { name: 'bench', balance: 100_000_000 });
    const app = await factory.activeApp(user.userId, { message_limit: 'TIER_100K' });
    await factory.sendableTemplate(app.id, { name: 'bench_tpl', category: 'UTILITY', body: 'Your code is ready' });
    return { appId: app.id, userId: user.userId, auth: user.auth };
  };
  try {
    return { databaseUrl, prefix, fresh: await sender(), busy: await sender(), pool };
  } finally {
    await factory.close();
  }
}

/** One bulk INSERT ... SELECT of template messages of the last 24 hours, and the tier's window to match. */
async function seedDay(f: Fixture, app: Sender): Promise<void> {
  await f.pool.query(
    `INSERT INTO messages (id, user_id, app_id, channel, recipient, kind, category, priority, status, price, currency, created_at, updated_at)
     SELECT 'seed-' || g, $1, $2, 'whatsapp', '4470' || lpad((g % ${SEEDED_RECIPIENTS})::text, 8, '0'), 'TEMPLATE',
            'UTILITY', 'service', 'DELIVERED', 0.02, 'USD', now() - (g * interval '80 ms'), now()
     FROM generate_series(1, ${SEEDED_MESSAGES}) g`,
    [app.userId, app.appId],
  );
  const window = await f.pool.query<{ exists: boolean }>(
    `SELECT to_regclass('api.tier_recipients') IS NOT NULL AS exists`,
  );
  if (window.rows[0].exists) {
    await f.pool.query(
      `INSERT INTO tier_recipients (app_id, recipient, first_sent_at, last_sent_at)
       SELECT app_id, recipient, min(created_at), max(created_at) FROM messages
       WHERE app_id = $1 AND kind = 'TEMPLATE' AND created_at > now() - interval '24 hours' GROUP BY app_id, recipient
       ON CONFLICT (app_id, recipient) DO UPDATE SET
         first_sent_at = least(tier_recipients.first_sent_at, excluded.first_sent_at),
         last_sent_at = greatest(tier_recipients.last_sent_at, excluded.last_sent_at)`,
      [app.appId],
    );
    await f.pool.query(
      `INSERT INTO tier_usage (app_id, recipients) SELECT $1, count(*) FROM tier_recipients WHERE app_id = $1
       ON CONFLICT (app_id) DO UPDATE SET recipients = excluded.recipients`,
      [app.appId],
    );
  }
  // The seed's own write-back and vacuum must not land inside the measurement.
  await f.pool.query(`VACUUM ANALYZE messages`);
  await f.pool.query(`CHECKPOINT`);
}

/** Compiles the services as `pnpm build` does (without its type check), unless dist is current. */
/** The gateway as deploy/Dockerfile runs it, on the run's database and stream prefix. */
async function startGateway(f: Fixture, natsUrl: string): Promise<{ child: ChildProcess; url: string }> {
  const { child, port } = await startBuilt('gateway', {
    DATABASE_URL: f.databaseUrl,
    NATS_URL: natsUrl,
    NATS_PREFIX: f.prefix,
  });
  return { child, url: `http://127.0.0.1:${port}` };
}

/** The api as deploy/Dockerfile runs it. */
async function startApi(
  f: Fixture,
  natsUrl: string,
  extraEnv: Record<string, string> = {},
): Promise<{ child: ChildProcess; url: string }> {
  const { child, port } = await startBuilt('api', {
    DATABASE_URL: f.databaseUrl,
    NATS_URL: natsUrl,
    NATS_PREFIX: f.prefix,
    ...extraEnv,
  });
  return { child, url: `http://127.0.0.1:${port}/api/v1/wa/apps` };
}

async function startBaseline(f: Fixture, natsUrl: string): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  let stderr = '';
  const child = fork(__filename, [], {
    env: {
      ...process.env,
      BENCH_BASELINE_SERVER: '1',
      BENCH_DATABASE_URL: f.databaseUrl,
      BENCH_NATS_URL: natsUrl,
      BENCH_PREFIX: f.prefix,
      BENCH_PORT: String(port),
      BENCH_APP_ID: String(f.fresh.appId),
    },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-8000)));
  await waitReady(`http://127.0.0.1:${port}/healthz`, child, () => stderr);
  return { child, url: `http://127.0.0.1:${port}/send` };
}

export const sendBench: Bench = async (opts) => {
  build();
  // The smoke run only proves the bench works: a smaller day keeps it to seconds.
  if (opts.smoke) SEEDED_MESSAGES = 20_000;
  const clients = await NatsClients.connect({ url: opts.natsUrl, name: 'bench-send' });
  const f = await setUp(opts, clients);
  const receiver = process.env.BENCH_TRACING === 'on' ? await new OtlpReceiver({ keep: false }).open() : null;
  const children: ChildProcess[] = [];
  let offset = 0;
  // Recipients cycle over a pool: half known to the busy app's tier window, half new, as in a campaign.
  const recipient = () => phone((offset++ % BENCH_RECIPIENTS) + SEEDED_RECIPIENTS / 2);
  const apiBody = () => JSON.stringify({ phone: recipient(), type: 'TEMPLATE', template: { name: 'bench_tpl' } });
  const gatewayBody = () => JSON.stringify({ channel: 'whatsapp', to: recipient(), template: 'bench_tpl' });
  // On a shared machine the load moves: the cases take turns in short slices, so each sees the same.
  const rounds = opts.smoke ? 1 : Number(process.env.BENCH_ROUNDS ?? 3);
  const slice = opts.seconds / rounds;
  try {
    process.stderr.write(`seeding ${SEEDED_MESSAGES} template messages of the busy app in the last 24 h\n`);
    await seedDay(f, f.busy);
    const baseline = await startBaseline(f, opts.natsUrl);
    children.push(baseline.child);
    const api = await startApi(f, opts.natsUrl);
    children.push(api.child);
    const gateway = await startGateway(f, opts.natsUrl);
    children.push(gateway.child);
    const gatewayAuth = await gatewayAccount(f, gateway.url);
    // BENCH_TRACING=on: a second api exporting its spans over OTLP/HTTP to a receiver here, in turns with the first.
    const traced = receiver ? await startApi(f, opts.natsUrl, receiver.env()) : null;
    if (traced) children.push(traced.child);
    interface Case {
      url: string;
      auth: string;
      body: () => string;
      expect: number;
    }
    const apiCase = (url: string, auth: string): Case => ({ url, auth, body: apiBody, expect: 201 });
    const cases: Record<'baseline' | 'fresh' | 'gateway' | 'busy' | 'traced', Case | null> = {
      baseline: apiCase(baseline.url, f.fresh.auth),
      fresh: apiCase(`${api.url}/${f.fresh.appId}/messages`, f.fresh.auth),
      // The same app, template and recipients as `fresh`, through the gateway, right after it.
      gateway: { url: `${gateway.url}/v1/messages`, auth: gatewayAuth, body: gatewayBody, expect: 202 },
      busy: apiCase(`${api.url}/${f.busy.appId}/messages`, f.busy.auth),
      traced: traced ? apiCase(`${traced.url}/${f.fresh.appId}/messages`, f.fresh.auth) : null,
    };
    const names = Object.keys(cases) as (keyof typeof cases)[];
    const slices = Object.fromEntries(names.map((n) => [n, [] as LoadResult[]])) as Record<
      keyof typeof cases,
      LoadResult[]
    >;
    // CPU milliseconds the api and the gateway spent while each case ran.
    const cpu = Object.fromEntries(names.map((n) => [n, { api: 0, gateway: 0 }])) as Record<
      keyof typeof cases,
      { api: number; gateway: number }
    >;
    // Every case once, unmeasured, so that no case pays for the services' first compilations.
    for (const name of names) {
      const c = cases[name];
      if (c) await load(c.url, c.auth, Math.min(2, slice), c.body, c.expect);
    }
    for (let round = 1; round <= rounds; round++) {
      for (const name of names) {
        const c = cases[name];
        if (!c) continue;
        process.stderr.write(`round ${round}/${rounds}: ${name}, ${slice} s\n`);
        const before = { api: cpuMs(api.child.pid), gateway: cpuMs(gateway.child.pid) };
        slices[name].push(await load(c.url, c.auth, slice, c.body, c.expect));
        cpu[name].api += cpuMs(api.child.pid) - before.api;
        cpu[name].gateway += cpuMs(gateway.child.pid) - before.gateway;
      }
    }
    const rss = peakRssMiB(api.child.pid!);
    await stop(gateway.child);
    await stop(api.child);
    await stop(baseline.child);
    if (traced) await stop(traced.child);
    const [base, fresh, busy, viaGateway] = (['baseline', 'fresh', 'busy', 'gateway'] as const).map((n) =>
      total(slices[n]),
    );
    const detail = (r: LoadResult) => ({ p50_ms: r.p50, p99_ms: r.p99, accepted: r.accepted, answers: r.statuses });
    const ratio = (value: number, of: number) => Math.round((value / Math.max(1, of)) * 100) / 100;
    /** CPU milliseconds per accepted send a service spent in a case (loaded requests and warm-up alike). */
    const perSend = (ms: number, r: LoadResult) => Math.round((ms / Math.max(1, r.accepted)) * 100) / 100;
    const on = traced ? total(slices.traced) : null;
    return [
      {
        bench: 'send',
        figure: 'accepted template sends/s, 1 app, 1 user, 50 connections',
        value: fresh.perSecond,
        unit: 'sends/s',
        baseline: { name: 'bare Fastify + pg + JetStream, same run', value: base.perSecond },
        ratio: ratio(fresh.perSecond, base.perSecond),
        detail: {
          ...detail(fresh),
          baseline_p50_ms: base.p50,
          baseline_p99_ms: base.p99,
          rounds,
          api_cpu_ms_per_send: perSend(cpu.fresh.api, fresh),
        },
      },
      {
        bench: 'send',
        figure: `accepted template sends/s with ${SEEDED_MESSAGES} template messages of the app in the last 24 h`,
        value: busy.perSecond,
        unit: 'sends/s',
        baseline: { name: 'the same api, an app with no messages today, same run', value: fresh.perSecond },
        ratio: ratio(busy.perSecond, fresh.perSecond),
        detail: detail(busy),
      },
      {
        bench: 'send',
        figure: "accepted template sends/s through the gateway's POST /v1/messages (WhatsApp), 50 connections",
        value: viaGateway.perSecond,
        unit: 'sends/s',
        baseline: { name: "the api's own send, same app and template, in turns, same run", value: fresh.perSecond },
        ratio: ratio(viaGateway.perSecond, fresh.perSecond),
        detail: {
          ...detail(viaGateway),
          api_send_p50_ms: fresh.p50,
          api_send_p99_ms: fresh.p99,
          gateway_cpu_ms_per_send: perSend(cpu.gateway.gateway, viaGateway),
          api_cpu_ms_per_send: perSend(cpu.gateway.api, viaGateway),
          api_cpu_ms_per_own_send: perSend(cpu.fresh.api, fresh),
        },
      },
      {
        bench: 'send',
        figure: 'api peak RSS through the accept bench (built, node dist/)',
        value: rss,
        unit: 'MiB',
      },
      ...(on
        ? [
            {
              bench: 'send',
              figure: 'accepted template sends/s with tracing on (OTLP/HTTP to a local receiver), 50 connections',
              value: on.perSecond,
              unit: 'sends/s',
              baseline: { name: 'the same api with tracing off, in turns, same run', value: fresh.perSecond },
              ratio: ratio(on.perSecond, fresh.perSecond),
              detail: { ...detail(on), tracing_off_p99_ms: fresh.p99, spans: receiver?.received ?? 0 },
            },
          ]
        : []),
    ];
  } finally {
    await Promise.all(children.map(stop));
    await receiver?.close();
    await f.pool.end();
    await deleteTopology(await clients.jsm(), new Topology(f.prefix)).catch(() => undefined);
    await clients.drain();
    const admin = new Pool({ connectionString: opts.databaseUrl, max: 1 });
    await admin.query(`DROP DATABASE IF EXISTS "${new URL(f.databaseUrl).pathname.slice(1)}" WITH (FORCE)`);
    await admin.end();
  }
};
