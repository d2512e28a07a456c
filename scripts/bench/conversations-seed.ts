// The conversations bench's history: contacts, conversations and messages seeded in SQL, as real
// accounts hold them, over several accounts (one large).
import { createHash } from 'node:crypto';
import { createDataSource } from '@app/database';

/** Rows seeded per statement. */
const SEED_CHUNK = 500_000;

/** The conversation the seed numbers `n` (the same uuid in SQL: md5 of the text). */
export const seededId = (kind: string, n: number) =>
  createHash('md5')
    .update(`bench-${kind}-${n}`)
    .digest('hex')
    .replace(/^(.{8})(.{4})(.{4})(.{4})/, '$1-$2-$3-$4-');
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
