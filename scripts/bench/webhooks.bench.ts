// Signed webhook deliveries per second from EVENTS to a local receiver answering 200 at once: one
// healthy subscriber alone (the baseline), then a healthy subscriber beside a dead and a hanging
// one of the same tenant that have been failing since before the first round. The webhooks
// service runs as its own process, as deployed.
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, Server } from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { newEventId, unixSeconds } from '@app/contracts';
import { createDataSource, migrateSchema } from '@app/database';
import { NatsClients, publishDurable } from '@app/messaging';
import { killHard, spawnTs, startTestInfra, waitForLine } from '@app/testing';
import { loadConfig } from '@app/config';
import { WebhooksConfig } from '../../apps/webhooks/src/config';
import { webhooksSchema } from '../../apps/webhooks/src/database/schema';
import { SecretCipher } from '../../apps/webhooks/src/subscriptions/secret-cipher';
import { newSigningSecret } from '../../apps/webhooks/src/subscriptions/subscription-secret';
import { SubscriptionsRepository } from '../../apps/webhooks/src/subscriptions/subscriptions.repository';
import { Bench, commandCpuMs, cpuMs, machineCpuMs, median } from './report';

/** Counts requests per path; `/hang` never answers, everything else answers 200 at once. */
class CountingReceiver {
  readonly counts = new Map<string, number>();
  private readonly waiters: { path: string; n: number; resolve: () => void }[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const path = req.url ?? '/';
      const n = (this.counts.get(path) ?? 0) + 1;
      this.counts.set(path, n);
      for (const w of this.waiters.filter((x) => x.path === path && n >= x.n)) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve();
      }
      if (path !== '/hang') res.end('ok');
    });
  });
  port = 0;

  async start(): Promise<this> {
    this.server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
    return this;
  }

  reached(path: string, n: number): Promise<void> {
    if ((this.counts.get(path) ?? 0) >= n) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ path, n, resolve }));
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A port that refuses connections: bound, then closed. */
async function deadPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as { port: number };
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

export const webhooksBench: Bench = async (opts) => {
  const events = opts.smoke ? 300 : Number(process.env.BENCH_WEBHOOK_EVENTS ?? 10_000);
  process.env.DATABASE_URL ??= opts.databaseUrl;
  process.env.NATS_URL ??= opts.natsUrl;
  const infra = await startTestInfra({ suite: 'bench_webhooks', autovacuum: true });
  const receiver = await new CountingReceiver().start();
  const env: Record<string, string> = {
    ...infra.env,
    NODE_ENV: 'development',
    LOG_LEVEL: 'info',
    WEBHOOKS_PORT: String(await deadPort()),
    WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true',
    // The hanging subscriber's attempts last this long before they count as failed.
    WEBHOOK_TIMEOUT_MS: '5000',
  };
  let child: ChildProcess | undefined;
  const clients = await NatsClients.connect({ url: infra.natsUrl, name: 'bench-webhooks' });
  const ds = createDataSource(infra.databaseUrl, webhooksSchema, 2);
  try {
    await migrateSchema(infra.databaseUrl, webhooksSchema);
    await ds.initialize();
    const config = loadConfig(WebhooksConfig, { ...process.env, ...env });
    const subscriptions = new SubscriptionsRepository(ds, SecretCipher.fromConfig(config));
    const subscribe = (userId: string, url: string) =>
      subscriptions.create({
        id: randomUUID(),
        userId,
        url,
        events: ['*'],
        appId: null,
        description: null,
        secret: newSigningSecret(),
      });

    child = spawnTs('apps/webhooks/src/main.ts', env);
    await waitForLine(child, /Nest application successfully started/, 60_000);

    /** Publishes `n` app.updated events of the tenant into EVENTS, 500 at a time. */
    const publish = async (userId: string, n: number) => {
      const subject = infra.topology.eventSubject('app.updated');
      for (let i = 0; i < n; i += 500) {
        await Promise.all(
          Array.from({ length: Math.min(500, n - i) }, (_, k) => {
            const id = newEventId();
            const event = {
              id,
              type: 'app.updated',
              created_at: unixSeconds(),
              channel: null,
              app_id: 1,
              user_id: userId,
              data: { app_id: 1, name: `bench app ${i + k}` },
            };
            return publishDurable(clients.js, subject, event, id);
          }),
        );
      }
    };

    /** Publishes `events` events for the tenant; deliveries/s until `path` has them all. */
    const cpuPerDelivery: Record<string, number[]> = {};
    const measure = async (userId: string, path: string, events: number): Promise<number> => {
      // Each measurement starts from vacuumed and analyzed tables, as pgbench's runs do: the
      // database is created by the bench, and until autovacuum first visits it (a minute or more)
      // the planner takes the tables for as small as they were at creation.
      await ds.query('VACUUM (ANALYZE)');
      // What the service, PostgreSQL (the fan-out's rows are most of what failing neighbours
      // add) and the whole machine spend per delivery.
      const meters = {
        service: () => cpuMs(child?.pid),
        postgres: () => commandCpuMs('postgres'),
        machine: machineCpuMs,
      };
      const before = Object.fromEntries(Object.entries(meters).map(([k, read]) => [k, read()]));
      const start = performance.now();
      const done = receiver.reached(path, events);
      await publish(userId, events);
      await done;
      const rate = events / ((performance.now() - start) / 1000);
      const kind = path.replace(/^\/|-\d+$/g, '');
      for (const [meter, read] of Object.entries(meters)) {
        (cpuPerDelivery[`${meter}-${kind}`] ??= []).push((read() - before[meter]) / events);
      }
      return rate;
    };

    // A short round first, so neither measurement pays for the service's warm-up.
    const warm = randomUUID();
    await subscribe(warm, receiver.url('/warm-up'));
    await measure(warm, '/warm-up', Math.min(1000, events));

    // Alone and beside take turns, each round with a fresh healthy subscriber, in the order
    // alone-beside then beside-alone (ABBA): the deliveries table grows through the run, so each
    // measurement is a little slower than the one before it, and a fixed order would charge all of
    // that to one side. The medians are compared, so a burst of load from elsewhere tilts neither
    // side.
    const rounds = opts.smoke ? 1 : Number(process.env.BENCH_ROUNDS ?? 4);
    const aloneRates: number[] = [];
    const besideRates: number[] = [];
    const measureAlone = async (round: number) => {
      const alone = randomUUID();
      await subscribe(alone, receiver.url(`/alone-${round}`));
      aloneRates.push(await measure(alone, `/alone-${round}`, events));
    };
    // The failing neighbours fail through the whole run, as a dead endpoint stays dead: they are
    // subscribed once and have failed (and been parked) before the first round; each round adds a
    // fresh healthy subscriber beside them and disables it afterwards.
    const beside = randomUUID();
    await subscribe(beside, `http://127.0.0.1:${await deadPort()}/dead`);
    await subscribe(beside, receiver.url('/hang'));
    await publish(beside, 10);
    const parked = async () =>
      Number(
        (
          await ds.query(`SELECT count(*) AS n FROM subscriptions WHERE user_id = $1 AND parked_until IS NOT NULL`, [
            beside,
          ])
        )[0].n,
      );
    const parkedBy = performance.now() + 3 * Number(env.WEBHOOK_TIMEOUT_MS);
    while ((await parked()) < 2 && performance.now() < parkedBy) await new Promise((r) => setTimeout(r, 200));
    const parkedBeforeFirstRound = await parked();
    const measureBeside = async (round: number) => {
      const healthy = await subscribe(beside, receiver.url(`/beside-${round}`));
      besideRates.push(await measure(beside, `/beside-${round}`, events));
      // Disabled rather than deleted: a delete cascades over the round's deliveries while their
      // last successes may still be settling.
      if (healthy) {
        await subscriptions.transaction((em) => subscriptions.disable(em, healthy.id, 'round over', null));
      }
    };
    for (let round = 1; round <= rounds; round++) {
      if (round % 2 === 1) {
        await measureAlone(round);
        await measureBeside(round);
      } else {
        await measureBeside(round);
        await measureAlone(round);
      }
    }
    const aloneRate = median(aloneRates);
    const besideRate = median(besideRates);

    const detail = {
      events,
      rounds,
      alone_rates: aloneRates.map(Math.round).join(' '),
      beside_rates: besideRates.map(Math.round).join(' '),
      // Each round's beside against its own alone (the two ran back to back).
      round_ratios: besideRates.map((b, i) => (b / aloneRates[i]).toFixed(3)).join(' '),
      hanging_requests: receiver.counts.get('/hang') ?? 0,
      failing_neighbours_parked_before_first_round: parkedBeforeFirstRound,
      ...Object.fromEntries(
        ['service', 'postgres', 'machine'].flatMap((meter) =>
          ['alone', 'beside'].map((kind) => [
            `${meter}_cpu_ms_per_delivery_${kind}`,
            Number(median(cpuPerDelivery[`${meter}-${kind}`]).toFixed(3)),
          ]),
        ),
      ),
    };
    return [
      {
        bench: 'webhooks',
        figure: 'signed deliveries/s to a healthy receiver, alone',
        value: Math.round(aloneRate),
        unit: 'deliveries/s',
        detail,
      },
      {
        bench: 'webhooks',
        figure: 'signed deliveries/s to a healthy receiver beside a dead and a hanging one (same tenant)',
        value: Math.round(besideRate),
        unit: 'deliveries/s',
        baseline: { name: 'alone, same run', value: Math.round(aloneRate) },
        ratio: Number((besideRate / aloneRate).toFixed(3)),
        detail,
      },
    ];
  } finally {
    if (child) await killHard(child);
    await receiver.stop();
    await clients.drain();
    if (ds.isInitialized) await ds.destroy();
    await infra.stop();
  }
};
