// pnpm bench conversations: two-way messaging at scale.
// - Inbound: customers writing to a Telegram bot and a MAX bot (every fifth message a photo) through
//   the gateway's webhooks, to `conversation.message.created`: messages/s and p95 from the webhook to
//   the event, beside the same messages' `message.received` (the webhook to the stream, no recording).
//   The updates are the sandbox's, posted to each bot's webhook with its secret as the channel does
//   (the channel's own servers are not on the measured machine); the photos are fetched from it.
// - History: a page of 50 messages of a random conversation, 20 clients at once, over seeded tables
//   (BENCH_CONVERSATION_MESSAGES in BENCH_CONVERSATIONS conversations; 10,000,000 in 1,000,000 by
//   default, 20,000 in 2,000 with --smoke), beside the same gateway's /healthz; the services' RSS
//   growth while they page. The messages' secondary indexes are built after their rows (a sort
//   each, instead of 10,000,000 random inserts into each).
// - Replies: POST /v1/conversations/{id}/messages accepted, one at a time, p95, beside /healthz.
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { EventEnvelope } from '@app/contracts';
import { createDataSource } from '@app/database';
import { NatsClients } from '@app/messaging';
import { AccountsRepository } from '../../apps/gateway/src/accounts/accounts.repository';
import { MESSAGE_COLUMNS } from '../../apps/gateway/src/conversations/conversations.repository';
import { gatewaySchema } from '../../apps/gateway/src/database/schema';
import { EmulatedBot } from '../../apps/sandbox/src/bots/bot-emulator';
import { maxUpdate } from '../../apps/sandbox/src/bots/max-bot-api.controller';
import { telegramUpdate } from '../../apps/sandbox/src/bots/telegram-bot-api.controller';
import { ApiFactory } from '../../test/support/factories';
import { httpLoad, keepAliveClient, LoadResult } from './http-load';
import { Bench, BenchFigure, percentile } from './report';
import { spawnPlatform } from './spawned-platform';

const PAGING_CLIENTS = 20;
const INBOUND_CLIENTS = 16;
/** Distinct customers writing (each one's first message makes its contact). */
const SENDERS = 400;
/** Rows seeded per statement. */
const SEED_CHUNK = 500_000;
const FREE = { MARKETING: 0, MARKETING_LITE: 0, UTILITY: 0, SERVICE: 0, AUTHENTICATION: 0 };
/** The header each channel sends its webhook secret in. */
const SECRET_HEADER = { telegram: 'X-Telegram-Bot-Api-Secret-Token', max: 'X-Max-Bot-Api-Secret' } as const;

/** The conversation the seed numbers `n` (the same uuid in SQL: md5 of the text). */
const seededId = (kind: string, n: number) => {
  const h = createHash('md5').update(`bench-${kind}-${n}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};
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
    let connectionId = '';
    for (const channel of ['telegram', 'max'] as const) {
      const bot = await post(sandbox, `/_sandbox/${channel}/bots`, {}, { 'Content-Type': 'application/json' });
      bots[channel] = bot.body.token as string;
      const made = await post(gateway, '/v1/connections', { channel, bot_token: bots[channel] });
      if (made.status !== 201) throw new Error(`connection ${channel}: ${made.status} ${JSON.stringify(made.body)}`);
      if (channel === 'telegram') connectionId = made.body.id as string;
    }

    // History: seeded in SQL, a set at a time, then the page of 50 under 20 clients.
    const seedStarted = performance.now();
    await seed(db, account.account.id, connectionId, threads, messages);
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    const pagePlan = await planOfPage(db, seededId('conv', 1));
    const atRest = platform.peakRssMib();
    const pageOf = () =>
      `/v1/conversations/${seededId('conv', 1 + Math.floor(Math.random() * threads))}/messages?limit=50`;
    const seconds = opts.seconds;
    const history = await httpLoad(platform.urls.gateway, {
      connections: PAGING_CLIENTS,
      seconds,
      expect: 200,
      next: () => ({ method: 'GET', path: pageOf(), headers: auth }),
    });
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
    for (const sub of subs) sub.unsubscribe();
    // Each service's CPU per message sent, from the first webhook until the last one is recorded.
    const cpuPerMessage = Object.fromEntries(
      Object.entries(cpuAfter).map(([s, ms]) => [
        `cpu_ms_per_message_${s}`,
        round(((ms ?? 0) - (cpuBefore[s as never] ?? 0)) / sent),
      ]),
    );
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
    const replyCount = opts.smoke ? 10 : 200;
    for (let i = 0; i < replyCount; i++) {
      const t0 = performance.now();
      const res = await post(gateway, `/v1/conversations/${live[i % live.length].id}/messages`, { text: `reply ${i}` });
      if (res.status === 202) replies.push(performance.now() - t0);
    }
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
      {
        bench: 'conversations',
        figure: `history page of 50 p95, ${PAGING_CLIENTS} clients, ${size}, ms (lower is better)`,
        value: p95(history),
        unit: 'ms',
        baseline: { name: `the same gateway's /healthz p95, ${PAGING_CLIENTS} clients, same run`, value: p95(health) },
        ratio: round(p95(history) / Math.max(0.01, p95(health))),
        detail: {
          pages: history.accepted,
          pages_per_second: history.perSecond,
          answers: history.statuses,
          seed_seconds: round(seedSeconds),
          page_plan: pagePlan,
          ...growth,
        },
      },
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

/** How PostgreSQL reads a conversation's latest page (the history query's plan below its limit). */
async function planOfPage(db: ReturnType<typeof createDataSource>, conversationId: string): Promise<string> {
  const [{ 'QUERY PLAN': plan }] = (await db.query(
    `EXPLAIN (FORMAT JSON) SELECT ${MESSAGE_COLUMNS} FROM conversation_messages
      WHERE conversation_id = $1 AND $2::uuid IS NULL ORDER BY channel_timestamp DESC, id DESC LIMIT 51`,
    [conversationId, null],
  )) as { 'QUERY PLAN': { Plan: PlanNode }[] }[];
  const steps: string[] = [];
  for (let node: PlanNode | undefined = plan[0].Plan.Plans?.[0]; node; node = node.Plans?.[0]) {
    steps.push(`${node['Node Type']}${node['Index Name'] ? ` using ${node['Index Name']}` : ''}`);
  }
  return steps.join(' < ');
}

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

/** Contacts, conversations and their messages seeded with generate_series, a chunk a statement. */
async function seed(
  db: ReturnType<typeof createDataSource>,
  accountId: string,
  connectionId: string,
  threads: number,
  messages: number,
): Promise<void> {
  for (let from = 1; from <= threads; from += SEED_CHUNK) {
    const to = Math.min(threads, from + SEED_CHUNK - 1);
    await db.query(
      `INSERT INTO contacts (id, account_id, name)
       SELECT md5('bench-contact-' || g)::uuid, $1, 'customer ' || g FROM generate_series($2::int, $3::int) g`,
      [accountId, from, to],
    );
    await db.query(
      `INSERT INTO conversations (id, account_id, connection_id, channel, contact_id, address)
       SELECT md5('bench-conv-' || g)::uuid, $1, $4, 'telegram', md5('bench-contact-' || g)::uuid, (900000000 + g)::text
         FROM generate_series($2::int, $3::int) g`,
      [accountId, from, to, connectionId],
    );
  }
  // The secondary indexes go while the rows come in and are built after: one sort each.
  const indexes: { indexname: string; indexdef: string }[] = await db.query(
    `SELECT indexname, indexdef FROM pg_indexes
      WHERE schemaname = current_schema() AND tablename = 'conversation_messages'
        AND indexname NOT IN (SELECT conname FROM pg_constraint WHERE conrelid = 'conversation_messages'::regclass)`,
  );
  for (const i of indexes) await db.query(`DROP INDEX ${i.indexname}`);
  for (let from = 1; from <= messages; from += SEED_CHUNK) {
    const to = Math.min(messages, from + SEED_CHUNK - 1);
    // Ids in ascending order (appended to the primary key), each conversation's messages together.
    await db.query(
      `INSERT INTO conversation_messages (id, conversation_id, account_id, direction, provider_message_id, status,
                                          content, channel_timestamp)
       SELECT lpad(to_hex(g), 32, '0')::uuid, md5('bench-conv-' || ((g - 1) / $4 + 1))::uuid, $1, 'in', 'seed:' || g,
              'RECEIVED', jsonb_build_object('type', 'text', 'text', 'seeded message ' || g),
              now() - g * interval '1 second'
         FROM generate_series($2::int, $3::int) g`,
      [accountId, from, to, Math.ceil(messages / threads)],
    );
  }
  await db.transaction(async (em) => {
    await em.query(`SET LOCAL maintenance_work_mem = '256MB'`);
    for (const i of indexes) await em.query(i.indexdef);
  });
  await db.query(`ANALYZE contacts, conversations, conversation_messages`);
}
