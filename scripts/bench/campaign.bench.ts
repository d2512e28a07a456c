// pnpm bench campaign: 100,000 recipients (2,000 with --smoke) over 10 WhatsApp numbers and 2 bots,
// as 10 gateway accounts of one business (an account has one connection per channel), each with
// its own WhatsApp app and a tenth of the contacts, two of them with a bot as well; their 10
// campaigns launched one after another (or together) with pacing raised (CAMPAIGN_PACING_* on the api, QUEUE_*_RATE_* on
// the queue) so that the platform is the limit. Figures: launch to the last recipient accepted, in
// recipients/s, against template sends accepted/s through the api's POST on the same platform in the
// same run; the estimates' time, and their estimated time of the run against the time it took (a
// warm-up campaign runs first, so that the runner has measured its passes; off by more than 20 %
// fails the bench); every service's peak RSS (the runner never holds the audience).
import { ChildProcess } from 'node:child_process';
import { Client } from 'pg';
import { migrateSchema } from '@app/database';
import { ADMIN_PORT_OFFSET } from '@app/server';
import { killHard, startTestInfra, TestInfra } from '@app/testing';
import {
  campaignLedger,
  ContactRow,
  GatewayCall,
  gatewayAccount,
  gatewayClient,
  importContacts,
} from '../../test/support/campaigns';
import { compileServicesBuild, spawnBuiltService } from '../../test/support/compiled-service';
import { ApiFactory } from '../../test/support/factories';
import { platformEnv, ServiceName } from '../../test/support/platform-env';
import { registerSandboxBot, registerSandboxNumber } from '../../test/support/sandbox';
import { ALL_SCHEMAS } from '../schemas';
import { checkEstimate, estimateFigure, launchCampaign, warmUp } from './campaign-steps';
import { campaignMediaStep } from './campaign-media-step';
import { httpLoad } from './http-load';
import { Bench, BenchFigure, BenchOptions, cpuMs } from './report';
import { peakRssMiB } from './built-services';

const ACCOUNTS = 10;
const ACCOUNTS_WITH_BOT = 2;
const CONNECTIONS = 50;
const SERVICES: ServiceName[] = ['sandbox', 'webhooks', 'gateway', 'queue', 'api'];
/**
 * Each service's memory limit in the Kubernetes base (k8s/base/*.yaml; the queue's per channel
 * Deployment; here one queue process runs every channel). The sandbox is never deployed.
 */
const MEMORY_LIMIT_MIB: Partial<Record<ServiceName, number>> = { api: 384, gateway: 384, webhooks: 384, queue: 256 };
/** Pacing far above what two cores can send: the platform, not a configured rate, sets the pace. */
const UNPACED = '10000';

const pad = (n: number, width: number) => String(n).padStart(width, '0');
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
/** Contact `i` of account `a`: ending in 9, the sandbox reports it sent, delivered and read. */
const phone = (a: number, i: number) => `7${pad(a, 2)}${pad(i, 7)}9`;
/** The baseline's recipients: apart from the campaigns'. */
const baselinePhone = (i: number) => `8${pad(i, 9)}9`;

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

interface Service {
  name: ServiceName;
  child: ChildProcess;
  tail: () => string;
}

/**
 * Every service from one build, with production Node flags, on the run's free ports: sandbox first,
 * api last. Each is ready once its admin listener answers `/readyz` (the sandbox's is its port +
 * ADMIN_PORT_OFFSET: it takes no ADMIN_PORT).
 */
async function startServices(
  build: string,
  env: Record<string, string>,
  adminPorts: Record<ServiceName, number>,
  started: Service[],
): Promise<void> {
  for (const name of SERVICES) {
    const adminPort = name === 'sandbox' ? Number(env.SANDBOX_PORT) + ADMIN_PORT_OFFSET : adminPorts[name];
    const child = spawnBuiltService(build, name, { ...env, ADMIN_PORT: String(adminPort) });
    let tail = '';
    const keep = (d: Buffer) => (tail = (tail + d.toString()).slice(-4000));
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    started.push({ name, child, tail: () => tail });
    const deadline = Date.now() + 120_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}: ${tail}`);
      const ok = await fetch(`http://127.0.0.1:${adminPort}/readyz`)
        .then((r) => r.ok)
        .catch(() => false);
      if (ok) break;
      if (Date.now() > deadline) throw new Error(`${name} not ready within 120 s: ${tail}`);
      await sleep(200);
    }
  }
}

/** One account of the business: its gateway client, app and whether it has a bot. */
interface Tenant {
  call: GatewayCall;
  appId: number;
  bot: boolean;
  campaignId: string;
}

/** The account's contacts: with a bot, half of them are on Telegram only. */
function contacts(a: number, n: number, bot: boolean): ContactRow[] {
  return Array.from({ length: n }, (_, k) => {
    const i = k + 1;
    const telegramOnly = bot && i % 2 === 0;
    return {
      external_id: `b${a}-${i}`,
      name: `Person ${i}`,
      identities: telegramOnly ? { telegram: String(a * 10_000_000 + i) } : { whatsapp: phone(a, i) },
      lists: ['everyone'],
    };
  });
}

/** Waits until no message of the run is still QUEUED: what went before no longer competes for the machine. */
async function drained(databaseUrl: string, timeoutMs: number): Promise<void> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { rows } = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM api.messages WHERE status = 'QUEUED'`,
      );
      if (rows[0].n === 0 || Date.now() > deadline) return;
      await sleep(500);
    }
  } finally {
    await db.end();
  }
}

/** The last recipient accepted (queued_at) of these campaigns, in ms since the epoch, and how many were. */
async function lastAccepted(databaseUrl: string, ids: string[]): Promise<{ at: number; queued: number }> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query<{ at: number; queued: number }>(
      `SELECT extract(epoch FROM max(queued_at)) * 1000 AS at, count(*)::int AS queued
         FROM api.campaign_recipients WHERE campaign_id = ANY($1::uuid[]) AND state = 'queued'`,
      [ids],
    );
    return { at: Number(rows[0].at), queued: rows[0].queued };
  } finally {
    await db.end();
  }
}

const UTILITY_PROBES = 20;

/** Campaign recipients not sent yet, over every campaign. */
async function pendingRecipients(databaseUrl: string): Promise<number> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM api.campaign_recipients WHERE state = 'pending'`,
    );
    return rows[0].n;
  } finally {
    await db.end();
  }
}

interface UtilityProbe {
  p50: number;
  p99: number;
  pendingAtFirst: number;
}

/**
 * Service beside marketing: UTILITY template sends through the api's POST while the campaigns run,
 * one every 250 ms; each one's time from its 201 to the channel (the sandbox's arrival time of that
 * recipient's message). The p99 of 20 is their slowest.
 */
async function probeUtility(
  urls: Record<ServiceName, string>,
  databaseUrl: string,
  auth: string,
  appId: number,
): Promise<UtilityProbe> {
  const latencies: number[] = [];
  let pendingAtFirst = -1;
  for (let i = 0; i < UTILITY_PROBES; i++) {
    const phone = `9${pad(Date.now() % 1_000_000, 6)}${pad(i, 3)}9`;
    const res = await fetch(`${urls.api}/api/v1/wa/apps/${appId}/messages`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify({
        phone,
        type: 'TEMPLATE',
        template: { name: 'notice', components: { body: { values: [`A-${i}`] } } },
      }),
    });
    const acceptedAt = Date.now();
    if (res.status !== 201) throw new Error(`utility send refused: ${res.status} ${await res.text()}`);
    if (pendingAtFirst < 0) pendingAtFirst = await pendingRecipients(databaseUrl);
    for (const deadline = acceptedAt + 30_000; ; await sleep(20)) {
      const got = (await (await fetch(`${urls.sandbox}/_sandbox/whatsapp/messages?to=${phone}`)).json()) as {
        received_at: number;
      }[];
      if (got.length) {
        latencies.push(Math.max(0, got[0].received_at - acceptedAt));
        break;
      }
      if (Date.now() > deadline) throw new Error(`utility send to ${phone} not at the channel within 30 s`);
    }
    await sleep(250);
  }
  latencies.sort((a, b) => a - b);
  return { p50: latencies[Math.floor(latencies.length / 2)], p99: latencies[latencies.length - 1], pendingAtFirst };
}

async function run(opts: BenchOptions, infra: TestInfra, build: string): Promise<BenchFigure[]> {
  const total = Number(process.env.BENCH_CAMPAIGN_RECIPIENTS ?? (opts.smoke ? 2_000 : 100_000));
  const perAccount = Math.floor(total / ACCOUNTS);
  const recipients = perAccount * ACCOUNTS;
  for (const def of ALL_SCHEMAS) await migrateSchema(infra.databaseUrl, def);
  const { urls, adminPorts, env } = await platformEnv(infra, {
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_SECOND: '1000000',
    RATE_LIMIT_BURST: '1000000',
    HOUSEKEEPING_INTERVAL_MS: '0',
    TEMPLATE_SYNC_INTERVAL_MS: '0',
    CAMPAIGN_PACING_WHATSAPP: UNPACED,
    CAMPAIGN_PACING_TELEGRAM: UNPACED,
    CAMPAIGN_PACING_MAX: UNPACED,
    // What one tick takes over all campaigns is sent at once: 1,000 allows 5,000/s at the default tick.
    CAMPAIGN_BATCH_MAX: process.env.BENCH_CAMPAIGN_BATCH_MAX ?? '1000',
    QUEUE_WHATSAPP_RATE_PER_SENDER: UNPACED,
    QUEUE_TELEGRAM_RATE_PER_BOT: UNPACED,
    QUEUE_MAX_RATE_PER_BOT: UNPACED,
    QUEUE_CONCURRENCY: '200',
  });
  // Every process started is stopped at the end, a failed start included.
  const services: Service[] = [];
  try {
    await startServices(build, env, adminPorts, services);
    // The business: one user paying for 10 accounts, each with its own WhatsApp number.
    const factory = await ApiFactory.connect(infra.databaseUrl);
    const user = await factory.user('system', { name: 'bench campaign', balance: 100_000_000 });
    const tenants: Tenant[] = [];
    for (let a = 0; a < ACCOUNTS; a++) {
      const app = await factory.activeApp(user.userId, {
        message_limit: 'TIER_UNLIMITED',
        phone: `1555300${pad(a, 4)}`,
      });
      await registerSandboxNumber(urls.sandbox, app);
      await factory.sendableTemplate(app.id, { name: 'promo', category: 'MARKETING', body: 'Hello {{1}}' });
      await factory.sendableTemplate(app.id, { name: 'notice', category: 'UTILITY', body: 'Your order {{1}}' });
      const call = gatewayClient(urls.gateway, await gatewayAccount(infra.databaseUrl, `bench ${a}`, user.userId));
      const linked = await call('POST', '/v1/connections', { channel: 'whatsapp', app_id: app.id });
      if (linked.status !== 201) throw new Error(`whatsapp connection refused: ${linked.status} ${linked.text}`);
      const bot = a < ACCOUNTS_WITH_BOT;
      if (bot) {
        const { token } = await registerSandboxBot(urls.sandbox, 'telegram');
        const connected = await call('POST', '/v1/connections', { channel: 'telegram', bot_token: token });
        if (connected.status !== 201) throw new Error(`bot refused: ${connected.status} ${connected.text}`);
      }
      tenants.push({ call, appId: app.id, bot, campaignId: '' });
    }
    await factory.close();
    process.stderr.write(`importing ${recipients} contacts over ${ACCOUNTS} accounts\n`);
    const importStarted = Date.now();
    for (const [a, t] of tenants.entries()) await importContacts(t.call, contacts(a, perAccount, t.bot), 600_000);
    const importSeconds = (Date.now() - importStarted) / 1000;

    // Baseline: template sends accepted through the api's POST, 50 connections over the 10 apps.
    const baselineSeconds = opts.smoke ? 3 : Math.min(opts.seconds, 20);
    process.stderr.write(`baseline: template sends through the api for ${baselineSeconds} s\n`);
    const baseline = await httpLoad(urls.api, {
      connections: CONNECTIONS,
      seconds: baselineSeconds,
      expect: 201,
      next: (i) => {
        const body = JSON.stringify({
          phone: baselinePhone(i),
          type: 'TEMPLATE',
          template: { name: 'promo', components: { body: { values: ['Ann'] } } },
        });
        return {
          method: 'POST',
          path: `/api/v1/wa/apps/${tenants[i % ACCOUNTS].appId}/messages`,
          headers: {
            authorization: user.auth,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          },
          body,
        };
      },
    });
    await drained(infra.databaseUrl, 300_000);
    // A platform that has sent campaigns before: the runner has measured what its passes cost.
    const warm = Math.min(perAccount, 2000);
    process.stderr.write(`warm-up: a campaign of ${warm} recipients\n`);
    await warmUp(
      tenants[ACCOUNTS - 1].call,
      Array.from({ length: warm }, (_, k) => `b${ACCOUNTS - 1}-${k + 1}`),
    );
    await drained(infra.databaseUrl, 300_000);

    // The campaigns, and the estimate of each (the whole audience, one account after another).
    for (const t of tenants) {
      const created = await t.call('POST', '/v1/campaigns', {
        name: 'Bench',
        template: 'promo',
        language: 'en',
        params: ['{{contact.name}}'],
        audience: { list: 'everyone' },
        channels: t.bot ? ['whatsapp', 'telegram'] : ['whatsapp'],
      });
      if (created.status !== 201) throw new Error(`campaign refused: ${created.status} ${created.text}`);
      t.campaignId = created.body.id as string;
    }
    const estimates: Json[] = [];
    const estimateStarted = Date.now();
    for (const t of tenants) {
      const e = await t.call('POST', `/v1/campaigns/${t.campaignId}/estimate`);
      if (e.status !== 200) throw new Error(`estimate refused: ${e.status} ${e.text}`);
      estimates.push(e.body);
    }
    const estimateMs = Date.now() - estimateStarted;
    const estimated = estimates.reduce((n, e) => n + Number(e.recipients), 0);
    if (estimated !== recipients) throw new Error(`the estimates count ${estimated} recipients, not ${recipients}`);

    // Launched one after another by default: ten launches of 10,000 at once exhaust the gateway's
    // heap (docs/performance-journal.md#campaigns); BENCH_CAMPAIGN_LAUNCH=together launches them at once.
    const together = process.env.BENCH_CAMPAIGN_LAUNCH === 'together';
    process.stderr.write(
      `launching ${ACCOUNTS} campaigns of ${perAccount} recipients ${together ? 'together' : 'one after another'}\n`,
    );
    const launchedAt = Date.now();
    const launch = async (t: Tenant) => {
      await launchCampaign(t.call, t.campaignId);
      return Date.now() - launchedAt;
    };
    const launchMs: number[] = [];
    let probing: Promise<UtilityProbe> | null = null;
    const probeOnce = () => {
      // Its failure is awaited below; a launch failing first must not leave it unhandled.
      probing ??= probeUtility(urls, infra.databaseUrl, user.auth, tenants[0].appId);
      probing.catch(() => undefined);
      return probing;
    };
    if (together) launchMs.push(...(await Promise.all(tenants.map(launch))));
    else
      for (const t of tenants) {
        launchMs.push(await launch(t));
        // Service sends while the campaigns run: from the first campaign on.
        void probeOnce();
      }
    const utility = await probeOnce();
    const ids = tenants.map((t) => t.campaignId);
    const deadline = Date.now() + 1_800_000;
    let said = 0;
    for (;;) {
      const views = await Promise.all(
        tenants.map(async (t) => (await t.call('GET', `/v1/campaigns/${t.campaignId}`)).body),
      );
      if (views.every((v) => v.state === 'completed')) break;
      const progress = `${views.filter((v) => v.state === 'completed').length}/${ACCOUNTS} completed, ${views.reduce((n, v) => n + Number(v.counts?.pending ?? 0), 0)} recipients pending (${views.map((v) => v.state ?? v.status).join(' ')})`;
      if (Date.now() - said > 5000) {
        process.stderr.write(`${progress}\n`);
        said = Date.now();
      }
      if (Date.now() > deadline) throw new Error(`campaigns not completed within 30 minutes: ${progress}`);
      await sleep(500);
    }
    const last = await lastAccepted(infra.databaseUrl, ids);
    if (last.queued !== recipients) throw new Error(`${last.queued} of ${recipients} recipients accepted`);
    for (const id of ids) {
      const ledger = await campaignLedger(infra.databaseUrl, id);
      const twice = [...ledger.messagesPerSeq.values()].filter((n) => n !== 1).length;
      if (ledger.messages !== perAccount || twice) {
        throw new Error(`campaign ${id}: ${ledger.messages} messages for ${perAccount}, ${twice} recipients not once`);
      }
    }
    const seconds = (last.at - launchedAt) / 1000;
    const value = recipients / seconds;
    const died = services.filter((s) => s.child.exitCode !== null || s.child.signalCode !== null).map((s) => s.name);
    if (died.length) throw new Error(`${died.join(', ')} exited during the run`);
    const rss = Object.fromEntries(services.map((s) => [s.name, peakRssMiB(s.child.pid!)])) as Record<
      ServiceName,
      number
    >;
    const label = opts.smoke ? ' (smoke)' : '';
    const estimate = await estimateFigure({
      databaseUrl: infra.databaseUrl,
      campaigns: tenants.map((t, k) => ({ id: t.campaignId, estimatedSeconds: Number(estimates[k].time.seconds) })),
      launchedAt,
      actualSeconds: seconds,
      label,
    });
    // One image to the step's own audience, against a text campaign to it (docs/media.md).
    const media = await campaignMediaStep({
      ...opts,
      urls,
      databaseUrl: infra.databaseUrl,
      userId: user.userId,
      cpuMs: () => {
        const used: Record<string, number> = {};
        for (const s of services) used[s.name] = (used[s.name] ?? 0) + cpuMs(s.child.pid);
        return used;
      },
    });
    return [
      estimate,
      ...media,
      {
        bench: 'campaign',
        figure: `${recipients} campaign recipients over ${ACCOUNTS} WhatsApp numbers and ${ACCOUNTS_WITH_BOT} bots, ${ACCOUNTS} campaigns launched ${together ? 'together' : 'one after another'}: first launch to the last recipient accepted${label}`,
        value: Math.round(value),
        unit: 'recipients/s',
        baseline: {
          name: `template sends accepted through the api's POST /api/v1/wa/apps/{id}/messages, ${CONNECTIONS} connections over the same ${ACCOUNTS} apps, same platform`,
          value: Math.round(baseline.perSecond),
        },
        ratio: Number((value / baseline.perSecond).toFixed(2)),
        detail: {
          seconds: Number(seconds.toFixed(1)),
          launch_calls_seconds: Number((Math.max(...launchMs) / 1000).toFixed(1)),
          // Each launch call's own time (one after another: from the end of the one before).
          ...(together
            ? {}
            : {
                launch_seconds_each: launchMs
                  .map((ms, k) => ((ms - (launchMs[k - 1] ?? 0)) / 1000).toFixed(2))
                  .join(' '),
              }),
          baseline_p99_ms: baseline.p99,
          baseline_answers: baseline.statuses,
          import_seconds: Number(importSeconds.toFixed(1)),
        },
      },
      {
        bench: 'campaign',
        figure: `a UTILITY send accepted while the campaigns run: its 201 to the channel, p99 of ${UTILITY_PROBES}${label}`,
        value: utility.p99,
        unit: 'ms',
        baseline: { name: 'the limit: marketing never delays service', value: 1000 },
        ratio: Number((utility.p99 / 1000).toFixed(2)),
        detail: { p50_ms: utility.p50, campaign_recipients_pending_at_first: utility.pendingAtFirst },
      },
      {
        bench: 'campaign',
        figure: `estimates of the ${ACCOUNTS} campaigns, ${recipients} recipients in all, one after another${label}`,
        value: estimateMs,
        unit: 'ms',
        detail: {
          estimated_seconds_longest: Math.max(...estimates.map((e) => Number(e.time.seconds))),
          limited_by: [...new Set(estimates.map((e) => String(e.time.limited_by)))].join(', '),
        },
      },
      ...SERVICES.map((name): BenchFigure => {
        const limit = MEMORY_LIMIT_MIB[name];
        return {
          bench: 'campaign',
          figure: `${name} peak RSS through the campaigns (built)${label}`,
          value: rss[name],
          unit: 'MiB',
          ...(limit
            ? {
                baseline: { name: 'memory limit (k8s/base)', value: limit },
                ratio: Number((rss[name] / limit).toFixed(2)),
              }
            : {}),
        };
      }),
    ];
  } catch (err) {
    for (const s of services) process.stderr.write(`${s.name}: ${s.tail().slice(-1500)}\n`);
    throw err;
  } finally {
    for (const s of [...services].reverse()) await killHard(s.child);
  }
}

export const campaignBench: Bench = async (opts) => {
  process.env.NATS_URL ??= opts.natsUrl;
  process.env.DATABASE_URL ??= opts.databaseUrl;
  const build = compileServicesBuild();
  const infra = await startTestInfra({ suite: 'bench_campaign', autovacuum: true });
  try {
    const figures = await run(opts, infra, build);
    // A smoke run (200 recipients a campaign) only shows the figure: its seconds are mostly the
    // launch calls themselves, which no estimate of sending counts.
    if (!opts.smoke) checkEstimate(figures);
    return figures;
  } finally {
    await infra.stop();
  }
};
