// pnpm bench conversations: two-way messaging at scale.
// - Inbound: customers writing to a Telegram bot and a MAX bot (every fifth message a photo) through
//   the gateway's webhooks, to `conversation.message.created`: messages/s and p95 from the webhook to
//   the event, beside the same messages' `message.received` (the webhook to the stream, no recording).
//   The updates are the sandbox's, posted to each bot's webhook with its secret as the channel does
//   (the channel's own servers are not on the measured machine); the photos are fetched from it.
// - History: pages of 50, 20 clients at once, over tables seeded in SQL (seedHistory: a few minutes
//   for BENCH_CONVERSATION_MESSAGES in BENCH_CONVERSATIONS conversations over five accounts, one
//   large; 10,000,000 in 1,000,000 by default, 20,000 in 2,000 with --smoke), beside the same
//   gateway's /healthz: p95 per query, a conversation's messages (the latest page, the page before
//   and after a message anywhere in it) and the large account's list (its first page and a page at
//   a random depth by cursor, with no filter and each filter); the services' RSS growth while they page.
// - Replies: POST /v1/conversations/{id}/messages accepted, one at a time, p95, beside /healthz.
import { performance } from 'node:perf_hooks';
import { EventEnvelope } from '@app/contracts';
import { createDataSource } from '@app/database';
import { NatsClients } from '@app/messaging';
import { AccountsRepository } from '../../apps/gateway/src/accounts/accounts.repository';
import { encodeListCursor } from '../../apps/gateway/src/conversations/conversations.service';
import { gatewaySchema } from '../../apps/gateway/src/database/schema';
import { EmulatedBot } from '../../apps/sandbox/src/bots/bot-emulator';
import { maxUpdate } from '../../apps/sandbox/src/bots/max-bot-api.controller';
import { telegramUpdate } from '../../apps/sandbox/src/bots/telegram-bot-api.controller';
import { ApiFactory } from '../../test/support/factories';
import { registerSandboxNumber } from '../../test/support/sandbox';
import { httpLoad, keepAliveClient, LoadResult } from './http-load';
import { largeAccountConversation, seededId, seedHistory } from './conversations-seed';
import { Bench, BenchFigure, cpuPerUnit, percentile, profilePhase } from './report';
import { spawnPlatform } from './spawned-platform';

const PAGING_CLIENTS = 20;
const INBOUND_CLIENTS = 16;
/** Distinct customers writing (each one's first message makes its contact). */
const SENDERS = 400;
const FREE = { MARKETING: 0, MARKETING_LITE: 0, UTILITY: 0, SERVICE: 0, AUTHENTICATION: 0 };
/** The header each channel sends its webhook secret in. */
const SECRET_HEADER = { telegram: 'X-Telegram-Bot-Api-Secret-Token', max: 'X-Max-Bot-Api-Secret' } as const;

const round = (n: number) => Math.round(n * 100) / 100;

export const conversationsBench: Bench = async (opts) => {
  const messages = Number(process.env.BENCH_CONVERSATION_MESSAGES ?? (opts.smoke ? 20_000 : 10_000_000));
  const threads = Number(process.env.BENCH_CONVERSATIONS ?? (opts.smoke ? 2_000 : 1_000_000));
  const platform = await spawnPlatform(opts, {
    suite: 'bench-conversations',
    services: ['api', 'gateway', 'sandbox'],
    env: {
      CHANNEL_MESSAGE_PRICES: JSON.stringify({ telegram: FREE, max: FREE }),
      // The load is one account, one address and one connection per bot: no limit of theirs measured.
      ...Object.fromEntries(
        [
          'RATE_LIMIT_PER_SECOND',
          'RATE_LIMIT_BURST',
          'PUBLIC_RATE_LIMIT_PER_ADDRESS_PER_SECOND',
          'PUBLIC_RATE_LIMIT_PER_ADDRESS_BURST',
          'PUBLIC_RATE_LIMIT_PER_TARGET_PER_SECOND',
          'PUBLIC_RATE_LIMIT_PER_TARGET_BURST',
        ].map((name) => [name, '100000']),
      ),
    },
  });
  const clients = await NatsClients.connect({ url: opts.natsUrl, name: 'bench-conversations' });
  const factory = await ApiFactory.connect(platform.infra.databaseUrl);
  const db = createDataSource(platform.infra.databaseUrl, gatewaySchema, 2);
  await db.initialize();
  const gateway = keepAliveClient(platform.urls.gateway, PAGING_CLIENTS);
  const sandbox = keepAliveClient(platform.urls.sandbox, INBOUND_CLIENTS);
  try {
    const user = await factory.user('system', { name: 'bench conversations', balance: 1_000_000 });
    const account = await new AccountsRepository(db).createAccount('bench', user.userId);
    const auth = { Authorization: `Bearer ${account.token}`, 'Content-Type': 'application/json' };
    const post = async (c: typeof gateway, path: string, body: unknown, headers: Record<string, string> = auth) => {
      const res = await c.send({ method: 'POST', path, headers, body: JSON.stringify(body) }, true);
      return { status: res.status, body: JSON.parse(res.body || 'null') as Record<string, unknown> };
    };
    const bots: Record<'telegram' | 'max', string> = { telegram: '', max: '' };
    const connections = { telegram: '', max: '', whatsapp: '' };
    const connect = async (body: Record<string, unknown>) => {
      const made = await post(gateway, '/v1/connections', body);
      if (made.status !== 201) throw new Error(`connection ${made.status} ${JSON.stringify(made.body)}`);
      return made.body.id as string;
    };
    for (const channel of ['telegram', 'max'] as const) {
      const bot = await post(sandbox, `/_sandbox/${channel}/bots`, {}, { 'Content-Type': 'application/json' });
      bots[channel] = bot.body.token as string;
      connections[channel] = await connect({ channel, bot_token: bots[channel] });
    }
    // The large account's WhatsApp conversations are seeded on a number of its own, so that each
    // page of them reads their windows from the api, as a live account's does.
    const app = await factory.activeApp(user.userId, { message_limit: 'TIER_UNLIMITED' });
    await registerSandboxNumber(platform.urls.sandbox, app);
    connections.whatsapp = await connect({ channel: 'whatsapp', app_id: app.id });

    // History: seeded in SQL, then each query's pages of 50 under 20 clients, one query after another.
    const seedStarted = performance.now();
    await seedHistory(db, { accountId: account.account.id, connections, threads, messages });
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    const seconds = opts.seconds;
    const atRest = platform.peakRssMib();
    const queries = await historyQueries(db, account.account.id, threads, messages);
    const history: { name: string; load: LoadResult }[] = [];
    profilePhase('history', 'go');
    const historyCpu = platform.cpuMs();
    for (const q of queries) {
      const load = await httpLoad(platform.urls.gateway, {
        connections: PAGING_CLIENTS,
        seconds: Math.max(2, Math.round(seconds / 6)),
        expect: 200,
        next: () => ({ method: 'GET', path: q.path(), headers: auth }),
      });
      history.push({ name: q.name, load });
    }
    profilePhase('history', 'stop');
    const historyCpuAfter = platform.cpuMs();
    const pagesRead = history.reduce((n, h) => n + h.load.accepted, 0);
    // Each service's CPU per page read, over every query's pages.
    const cpuPerPage = cpuPerUnit(historyCpu, historyCpuAfter, Math.max(1, pagesRead), (s) => `cpu_ms_per_page_${s}`);
    const paged = platform.peakRssMib();
    const health = await httpLoad(platform.urls.gateway, {
      connections: PAGING_CLIENTS,
      seconds: Math.max(2, seconds / 2),
      expect: 200,
      next: () => ({ method: 'GET', path: '/healthz' }),
    });
    const growth = Object.fromEntries(
      Object.entries(paged).map(([s, v]) => [`rss_growth_mib_${s}`, round((v ?? 0) - (atRest[s as never] ?? 0))]),
    );

    // Inbound: the bots' updates posted to their webhooks, each message marked to find its events.
    const hooks = Object.fromEntries(
      await Promise.all(
        (['telegram', 'max'] as const).map(async (channel) => {
          const res = await sandbox.send({ method: 'GET', path: `/_sandbox/${channel}/bots` }, true);
          const bot = (JSON.parse(res.body) as EmulatedBot[]).find((b) => b.token === bots[channel])!;
          if (!bot.webhook?.secret) throw new Error(`the ${channel} bot has no webhook`);
          const url = new URL(bot.webhook.url);
          return [channel, { bot, path: url.pathname, headers: { [SECRET_HEADER[channel]]: bot.webhook.secret } }];
        }),
      ),
    ) as Record<'telegram' | 'max', { bot: EmulatedBot; path: string; headers: Record<string, string> }>;
    const t = platform.infra.topology;
    const sentAt = new Map<number, number>();
    const arrived = {
      'conversation.message.created': new Map<number, number>(),
      'message.received': new Map<number, number>(),
    };
    const subs = (Object.keys(arrived) as (keyof typeof arrived)[]).map((type) => {
      const sub = clients.nc.subscribe(t.eventSubject(type));
      void (async () => {
        for await (const m of sub) {
          const mark = /bm-(\d+)-/.exec(JSON.stringify(m.json<EventEnvelope>().data))?.[1];
          if (mark !== undefined && !arrived[type].has(Number(mark)))
            arrived[type].set(Number(mark), performance.now());
        }
      })();
      return sub;
    });
    const cpuBefore = platform.cpuMs();
    profilePhase('inbound', 'go');
    let next = 0;
    const inboundEnd = performance.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: INBOUND_CLIENTS }, async () => {
        while (performance.now() < inboundEnd) {
          const i = next++;
          const channel = i % 2 ? 'max' : 'telegram';
          const from = String(7_000_000 + (i % SENDERS));
          const text = `bm-${i}- hello`;
          const photo = i % 5 === 0 ? `${platform.urls.sandbox}/_media/bench-${i}?type=image/jpeg` : undefined;
          const hook = hooks[channel];
          const update =
            channel === 'telegram'
              ? telegramUpdate(1 + i, hook.bot, { chat_id: from, text, photo_url: photo })
              : maxUpdate(hook.bot, { user_id: from, text, photo_url: photo }, 1 + i);
          sentAt.set(i, performance.now());
          const res = await post(gateway, hook.path, update, { ...hook.headers, 'Content-Type': 'application/json' });
          if (res.status >= 300) throw new Error(`inbound ${channel}: ${res.status} ${JSON.stringify(res.body)}`);
        }
      }),
    );
    const sent = next;
    const caughtUp = performance.now() + 120_000;
    while (arrived['conversation.message.created'].size < sent && performance.now() < caughtUp) {
      await new Promise((r) => setTimeout(r, 100));
    }
    const cpuAfter = platform.cpuMs();
    profilePhase('inbound', 'stop');
    for (const sub of subs) sub.unsubscribe();
    // Each service's CPU per message sent, from the first webhook until the last one is recorded.
    const cpuPerMessage = cpuPerUnit(cpuBefore, cpuAfter, sent, (s) => `cpu_ms_per_message_${s}`);
    const flow = (type: keyof typeof arrived) => {
      const at = arrived[type];
      const lat = [...at].map(([i, ms]) => ms - sentAt.get(i)!);
      const first = Math.min(...sentAt.values());
      return {
        count: at.size,
        perSecond: Math.round(at.size / ((Math.max(...at.values()) - first) / 1000)),
        p95: round(percentile(lat, 95)),
      };
    };
    const recorded = flow('conversation.message.created');
    const received = flow('message.received');

    // Replies: one at a time, to the customers who just wrote.
    const list = await gateway.send(
      { method: 'GET', path: '/v1/conversations?channel=telegram&limit=50', headers: auth },
      true,
    );
    const live = (JSON.parse(list.body) as { data: { id: string }[] }).data;
    const replies: number[] = [];
    profilePhase('replies', 'go');
    const replyCount = opts.smoke ? 10 : 200;
    for (let i = 0; i < replyCount; i++) {
      const t0 = performance.now();
      const res = await post(gateway, `/v1/conversations/${live[i % live.length].id}/messages`, { text: `reply ${i}` });
      if (res.status === 202) replies.push(performance.now() - t0);
    }
    profilePhase('replies', 'stop');
    const alone = await httpLoad(platform.urls.gateway, {
      connections: 1,
      seconds: Math.max(2, seconds / 4),
      expect: 200,
      next: () => ({ method: 'GET', path: '/healthz' }),
    });

    const p95 = (r: LoadResult) => round(percentile(r.latencies, 95));
    const size = `${messages} messages in ${threads} conversations`;
    const figures: BenchFigure[] = [
      {
        bench: 'conversations',
        figure: `inbound messages/s through the webhooks to conversation.message.created (Telegram and MAX, 20 % photos, ${INBOUND_CLIENTS} senders at once)`,
        value: recorded.perSecond,
        unit: 'messages/s',
        baseline: {
          name: 'the same messages to message.received (webhook to stream, not recorded), same run',
          value: received.perSecond,
        },
        ratio: round(recorded.perSecond / Math.max(1, received.perSecond)),
        detail: {
          sent,
          recorded: recorded.count,
          received: received.count,
          customers: SENDERS,
          ...cpuPerMessage,
        },
      },
      {
        bench: 'conversations',
        figure: 'inbound p95 from the webhook to conversation.message.created, ms (lower is better)',
        value: recorded.p95,
        unit: 'ms',
        baseline: { name: 'the same messages to message.received p95, same run', value: received.p95 },
        ratio: round(recorded.p95 / Math.max(0.01, received.p95)),
      },
      ...history.map(({ name, load }, i): BenchFigure => ({
        bench: 'conversations',
        figure: `history ${name}: page of 50 p95, ${PAGING_CLIENTS} clients, ${size}, ms (lower is better)`,
        value: p95(load),
        unit: 'ms',
        baseline: {
          name: `the same gateway's /healthz p95, ${PAGING_CLIENTS} clients, same run`,
          value: p95(health),
        },
        ratio: round(p95(load) / Math.max(0.01, p95(health))),
        detail: {
          pages: load.accepted,
          pages_per_second: load.perSecond,
          p50: load.p50,
          p99: load.p99,
          answers: load.statuses,
          ...(i === 0 ? { seed_seconds: round(seedSeconds), ...growth, ...cpuPerPage } : {}),
        },
      })),
      {
        bench: 'conversations',
        figure: 'reply accepted p95 (POST /v1/conversations/{id}/messages, one at a time), ms (lower is better)',
        value: round(percentile(replies, 95)),
        unit: 'ms',
        baseline: { name: "the same gateway's /healthz p95, one at a time, same run", value: p95(alone) },
        ratio: round(percentile(replies, 95) / Math.max(0.01, p95(alone))),
        detail: { replies: replyCount, accepted: replies.length },
      },
    ];
    return figures;
  } finally {
    gateway.close();
    sandbox.close();
    await db.destroy();
    await factory.close();
    await clients.drain();
    await platform.stop();
  }
};

/** A history query the bench pages through: its name in the figure, and the next request's path. */
interface HistoryQuery {
  name: string;
  path: () => string;
}

/** The list's filters measured, each as its query string and the conversations it keeps (SQL, `c`). */
const LIST_FILTERS: { name: string; query: string; where: string }[] = [
  { name: 'no filter', query: '', where: 'true' },
  { name: 'status=pending', query: '&status=pending', where: `c.status = 'pending'` },
  { name: 'assignee', query: '&assignee=agent-7', where: `c.assignee = 'agent-7'` },
  { name: 'channel=max', query: '&channel=max', where: `c.channel = 'max'` },
  { name: 'label (common)', query: '&label=billing', where: `c.labels @> '{billing}'` },
  { name: 'label (rare)', query: '&label=escalated', where: `c.labels @> '{escalated}'` },
  { name: 'unread=true', query: '&unread=true', where: 'c.unread_count > 0' },
  { name: 'updated_since (90 days)', query: '', where: `c.updated_at >= now() - interval '90 days'` },
];

/** Picks one of `items` at random. */
const anyOf = <T>(items: T[]): T => items[Math.floor(Math.random() * items.length)];

/**
 * The history queries over the seeded tables: a random conversation of the large account's
 * messages (latest, before and after a message drawn from anywhere in the tables), and its list's
 * first page and a page at a random depth (a cursor at a sampled row) with each filter. A rare label
 * is put on one conversation in a thousand first (its pages are read from the labels' index).
 */
async function historyQueries(
  db: ReturnType<typeof createDataSource>,
  accountId: string,
  threads: number,
  messages: number,
): Promise<HistoryQuery[]> {
  await db.query(
    `UPDATE conversations SET labels = labels || '{escalated}'::text[]
      WHERE account_id = $1 AND NOT labels @> '{escalated}' AND ('x' || substr(md5(id::text), 1, 8))::bit(32)::bigint % 1000 = 7`,
    [accountId],
  );
  await db.query(`ANALYZE conversations`);
  const large = Math.floor((threads * 6) / 10);
  const conversation = () => seededId('conv', largeAccountConversation(1 + Math.floor(Math.random() * (large - 1))));
  // Messages of the large account sampled from anywhere in the table: cursors at any depth.
  const marks = (await db.query(
    `SELECT conversation_id, id FROM conversation_messages TABLESAMPLE SYSTEM ($2) WHERE account_id = $1 LIMIT 5000`,
    [accountId, Math.min(100, (20_000 / messages) * 100)],
  )) as { conversation_id: string; id: string }[];
  if (!marks.length) throw new Error('no message of the large account sampled');
  const page = (conversationId: string, cursor = '') =>
    `/v1/conversations/${conversationId}/messages?limit=50${cursor}`;
  const queries: HistoryQuery[] = [
    { name: 'messages, latest page', path: () => page(conversation()) },
    ...(['before', 'after'] as const).map((side) => ({
      name: `messages, page ${side} a message`,
      path: () => {
        const m = anyOf(marks);
        return page(m.conversation_id, `&${side}=${m.id}`);
      },
    })),
  ];
  const since = Math.floor(Date.now() / 1000) - 90 * 86_400;
  for (const f of LIST_FILTERS) {
    const query = f.name.startsWith('updated_since') ? `&updated_since=${since}` : f.query;
    // Rows of the filter at random depths: each the cursor of the page that follows it.
    const cursors = (
      (await db.query(
        `SELECT to_char(c.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at, c.id
           FROM conversations c WHERE c.account_id = $1 AND ${f.where} ORDER BY random() LIMIT 2000`,
        [accountId],
      )) as { at: string; id: string }[]
    ).map((r) => encodeListCursor(r.at, r.id));
    queries.push({ name: `list, ${f.name}, first page`, path: () => `/v1/conversations?limit=50${query}` });
    if (cursors.length) {
      queries.push({
        name: `list, ${f.name}, page at a random depth`,
        path: () => `/v1/conversations?limit=50${query}&cursor=${anyOf(cursors)}`,
      });
    }
  }
  return queries;
}
