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
import { createHash } from 'node:crypto';
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
    // The large account's WhatsApp conversations are seeded on a connection of its own.
    const connections = { telegram: '', max: '', whatsapp: seededId('whatsapp-connection', 1) };
    for (const channel of ['telegram', 'max'] as const) {
      const bot = await post(sandbox, `/_sandbox/${channel}/bots`, {}, { 'Content-Type': 'application/json' });
      bots[channel] = bot.body.token as string;
      const made = await post(gateway, '/v1/connections', { channel, bot_token: bots[channel] });
      if (made.status !== 201) throw new Error(`connection ${channel}: ${made.status} ${JSON.stringify(made.body)}`);
      connections[channel] = made.body.id as string;
    }

    // History: seeded in SQL, then each query's pages of 50 under 20 clients, one query after another.
    const seedStarted = performance.now();
    await seedHistory(db, { accountId: account.account.id, connections, threads, messages });
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    const seconds = opts.seconds;
    const atRest = platform.peakRssMib();
    const queries = await historyQueries(db, account.account.id, threads, messages);
    const history: { name: string; load: LoadResult }[] = [];
    for (const q of queries) {
      const load = await httpLoad(platform.urls.gateway, {
        connections: PAGING_CLIENTS,
        seconds: Math.max(2, Math.round(seconds / 6)),
        expect: 200,
        next: () => ({ method: 'GET', path: q.path(), headers: auth }),
      });
      history.push({ name: q.name, load });
    }
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
          ...(i === 0 ? { seed_seconds: round(seedSeconds), ...growth } : {}),
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

/** What the history seed makes: `threads` conversations with `messages` messages over several accounts. */
export interface HistorySeed {
  /** The large account (six conversations in ten); four smaller accounts share the rest. */
  accountId: string;
  /** The large account's connections by channel (the smaller accounts' are made-up ids). */
  connections: Record<'telegram' | 'max' | 'whatsapp', string>;
  threads: number;
  messages: number;
}

/** Conversation `g`'s account (SQL): six in ten the large account's, else one of four smaller ones. */
const ACCOUNT_OF = (g: string) =>
  `(CASE WHEN ${g} % 10 < 6 THEN $1::uuid ELSE md5('bench-account-' || (${g} % 10 - 5))::uuid END)`;

/** The large account's `n`th seeded conversation (from 1; conversation `g` is its when g % 10 < 6). */
export const largeAccountConversation = (n: number): number => Math.floor(n / 6) * 10 + (n % 6);

/**
 * Contacts, conversations and their messages seeded with generate_series, as real accounts hold
 * them: each conversation its own status, assignee, labels, channel, unread count and time of
 * update over a year; messages in time order over the year, each conversation's scattered among
 * the others', in and out, a few conversations long (the longest about 1 % of all messages) and
 * most short. Foreign keys and secondary indexes are dropped while the rows come in and made again
 * after (one sort each instead of millions of random inserts), then the tables vacuumed and analysed.
 */
export async function seedHistory(db: ReturnType<typeof createDataSource>, s: HistorySeed): Promise<void> {
  await db.query(
    `INSERT INTO accounts (id, name) SELECT md5('bench-account-' || a)::uuid, 'bench account ' || a
       FROM generate_series(1, 4) a ON CONFLICT DO NOTHING`,
  );
  // Accounts that keep a year of history keep its content as long: no purge pass blanks it mid-run.
  await db.query(
    `INSERT INTO conversation_settings (account_id, content_retention_days, updated_at)
     SELECT id, 3650, now() FROM accounts WHERE id = $1 OR id IN (SELECT md5('bench-account-' || a)::uuid
                                                                  FROM generate_series(1, 4) a)
     ON CONFLICT (account_id) DO UPDATE SET content_retention_days = 3650`,
    [s.accountId],
  );
  const tables = ['conversations', 'conversation_messages'];
  const [{ defs }] = (await db.query(
    `SELECT coalesce(jsonb_agg(d), '[]') AS defs FROM (
       SELECT format('ALTER TABLE %I ADD CONSTRAINT %I %s', t.relname, c.conname, pg_get_constraintdef(c.oid)) AS make,
              format('ALTER TABLE %I DROP CONSTRAINT %I', t.relname, c.conname) AS drop
         FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
        WHERE c.contype = 'f' AND t.relnamespace = current_schema()::regnamespace AND t.relname = ANY($1)
       UNION ALL
       SELECT i.indexdef, format('DROP INDEX %I', i.indexname) FROM pg_indexes i
        WHERE i.schemaname = current_schema() AND i.tablename = ANY($1)
          AND i.indexname NOT IN (SELECT conname FROM pg_constraint WHERE contype IN ('p', 'u'))) d`,
    [tables],
  )) as { defs: { make: string; drop: string }[] }[];
  for (const d of defs) await db.query(d.drop);
  const chunk = (total: number, each: (from: number, to: number) => Promise<unknown>) =>
    (async () => {
      for (let from = 1; from <= total; from += SEED_CHUNK) await each(from, Math.min(total, from + SEED_CHUNK - 1));
    })();
  const year = 365 * 86_400;
  await chunk(s.threads, async (from, to) => {
    await db.query(
      `INSERT INTO contacts (id, account_id, name)
       SELECT md5('bench-contact-' || g)::uuid, ${ACCOUNT_OF('g')}, 'customer ' || g FROM generate_series($2::int, $3::int) g`,
      [s.accountId, from, to],
    );
    await db.query(
      `INSERT INTO conversations (id, account_id, connection_id, channel, contact_id, address, status, assignee, labels,
                                  unread_count, last_message_at, last_message, created_at, updated_at)
       SELECT md5('bench-conv-' || g)::uuid, ${ACCOUNT_OF('g')},
              CASE WHEN g % 10 >= 6 THEN md5('bench-connection-' || g % 10 || ch)::uuid
                   WHEN ch = 'telegram' THEN $4::uuid WHEN ch = 'max' THEN $5::uuid ELSE $6::uuid END,
              ch, md5('bench-contact-' || g)::uuid, (900000000 + g)::text,
              (ARRAY['open', 'open', 'pending', 'closed', 'closed', 'closed', 'closed'])[(1 + h % 7)::int],
              CASE WHEN h % 5 < 3 THEN 'agent-' || (h / 5) % 20 END,
              CASE WHEN h % 20 = 0 THEN ARRAY['vip'] WHEN h % 20 < 3 THEN ARRAY['billing'] WHEN h % 20 = 3
                   THEN ARRAY['billing', 'vip'] ELSE '{}' END,
              CASE WHEN h % 100 < 8 THEN 1 + h % 5 ELSE 0 END,
              at, jsonb_build_object('id', md5('bench-last-' || g)::uuid, 'direction', 'in', 'status', 'RECEIVED',
                'content', jsonb_build_object('type', 'text', 'text', 'seeded message'),
                'timestamp', floor(extract(epoch FROM at))::bigint),
              at - interval '30 days', at
         FROM (SELECT g, h, (ARRAY['telegram', 'telegram', 'whatsapp', 'whatsapp', 'whatsapp', 'max'])[(1 + h % 6)::int] AS ch,
                      now() - (h % ${year}) * interval '1 second' - (h % 997) * interval '1 microsecond' AS at
                 FROM (SELECT g, (g::bigint * 2654435761) % 4294967296 AS h FROM generate_series($2::int, $3::int) g) x) y`,
      [s.accountId, from, to, s.connections.telegram, s.connections.max, s.connections.whatsapp],
    );
  });
  // Message i: written i steps into the year; its conversation drawn with density falling as 1/sqrt.
  await chunk(s.messages, async (from, to) => {
    await db.query(
      `INSERT INTO conversation_messages (id, conversation_id, account_id, direction, provider_message_id, message_id,
                                          status, content, channel_timestamp, created_at)
       SELECT lpad(to_hex(i), 32, '0')::uuid, md5('bench-conv-' || c)::uuid, ${ACCOUNT_OF('c')},
              CASE WHEN i % 2 = 0 THEN 'in' ELSE 'out' END,
              CASE WHEN i % 2 = 0 THEN 'seed:' || i END,
              CASE WHEN i % 2 = 1 THEN md5('bench-message-' || i)::uuid END,
              CASE WHEN i % 2 = 0 THEN 'RECEIVED' ELSE 'DELIVERED' END,
              jsonb_build_object('type', 'text', 'text', 'seeded message ' || i || repeat(' and more', i % 12)),
              at, at
         FROM (SELECT i, 1 + floor($4::int * random() ^ 2)::int AS c,
                      now() - ($5::int - i) * ($6::float8 / $5::int) * interval '1 second' AS at
                 FROM generate_series($2::int, $3::int) i) x`,
      [s.accountId, from, to, s.threads, s.messages, year],
    );
  });
  await db.transaction(async (em) => {
    await em.query(`SET LOCAL maintenance_work_mem = '512MB'`);
    for (const d of defs) await em.query(d.make);
  });
  await db.query(`VACUUM (ANALYZE) contacts, conversations, conversation_messages`);
}
