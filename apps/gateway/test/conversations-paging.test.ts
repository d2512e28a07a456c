import { DataSource } from 'typeorm';
import { createDataSource } from '@app/database';
import { Platform, startPlatform } from '../../../test/support/platform';
import { AccountsRepository } from '../src/accounts/accounts.repository';
import { gatewaySchema } from '../src/database/schema';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const CHANNELS = ['telegram', 'whatsapp', 'max'];
const STATUSES = ['open', 'pending', 'closed'];

/** A conversation as stored for the test: what the list's order and filters read. */
interface Stored {
  id: string;
  at: string;
  status: string;
  assignee: string | null;
  channel: string;
  labels: string[];
  unread: number;
}

/** An exact time (microseconds) `seconds` after `base`, `micros` into its second. */
const exactAt = (base: number, seconds: number, micros: number) =>
  `${new Date(base + seconds * 1000).toISOString().slice(0, 19)}.${String(micros).padStart(6, '0')}Z`;

/** The uuid of `n` in its kind (sorting as the number does within a kind). */
const uuidOf = (kind: number, n: number) =>
  `${String(kind).padStart(8, '0')}-0000-7000-8000-${String(n).padStart(12, '0')}`;

/**
 * Paging by cursor, through the API: every page of the conversation list, with each filter, holds
 * the next conversations in order (the latest updated first, ties by id) and walking the pages
 * gives each matching conversation once and no other (another account's never); a conversation's
 * messages page back from the latest and forward from any message, ties in time included.
 */
describe('conversations: paging the list and the messages by cursor', () => {
  let platform: Platform;
  let db: DataSource;
  let token: string;
  const stored: Stored[] = [];
  const messages: { id: string; at: string }[] = [];
  const threadId = uuidOf(3, 1);

  const get = async (path: string) => {
    const res = await fetch(`${platform.urls.gateway}${path}`, { headers: { Authorization: `Bearer ${token}` } });
    return { status: res.status, body: (await res.json()) as Json };
  };

  beforeAll(async () => {
    platform = await startPlatform({ suite: 'gw-conversations-paging', services: ['gateway'] });
    db = createDataSource(platform.infra.databaseUrl, gatewaySchema, 2);
    await db.initialize();
    const accounts = new AccountsRepository(db);
    const mine = await accounts.createAccount('paging shop', null);
    const other = await accounts.createAccount('other shop', null);
    token = mine.token;
    // 90 conversations of the account, three at a time updated at the same microsecond; 10 of another account.
    const rows: (Stored & { account: string })[] = [];
    for (let i = 0; i < 100; i++) {
      const group = Math.floor(i / 3);
      rows.push({
        account: i < 90 ? mine.account.id : other.account.id,
        id: uuidOf(1, (i * 37) % 100),
        at: exactAt(Date.UTC(2026, 0, 1), group, (group * 7919) % 1_000_000),
        status: STATUSES[i % 3 === 0 ? 1 : i % 2 ? 0 : 2],
        assignee: i % 4 === 0 ? 'agent-1' : i % 4 === 1 ? 'agent-2' : null,
        channel: CHANNELS[i % 5 === 0 ? 2 : i % 2],
        labels: i === 41 ? ['rare'] : i % 3 === 1 ? ['vip', 'billing'] : i % 6 === 2 ? ['billing'] : [],
        unread: i % 7 === 0 ? 2 : 0,
      });
    }
    await db.query(
      `INSERT INTO contacts (id, account_id, name)
       SELECT x.id, x.account, 'customer' FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, account uuid)`,
      [JSON.stringify(rows.map((r) => ({ id: r.id, account: r.account })))],
    );
    await db.query(
      `INSERT INTO conversations (id, account_id, connection_id, channel, contact_id, address, status, assignee, labels,
                                  unread_count, created_at, updated_at)
       SELECT x.id, x.account, x.id, x.channel, x.id, 'address', x.status, x.assignee,
              ARRAY(SELECT jsonb_array_elements_text(x.labels)), x.unread, x.at, x.at
         FROM jsonb_to_recordset($1::jsonb)
           AS x(id uuid, account uuid, channel text, status text, assignee text, labels jsonb, unread int, at timestamptz)`,
      [JSON.stringify(rows)],
    );
    stored.push(...rows.filter((r) => r.account === mine.account.id));
    // One conversation's 130 messages, four at a time written at the same microsecond.
    for (let i = 0; i < 130; i++) {
      const group = Math.floor(i / 4);
      messages.push({ id: uuidOf(2, (i * 53) % 130), at: exactAt(Date.UTC(2026, 1, 1), group % 3, group * 11) });
    }
    await db.query(`INSERT INTO contacts (id, account_id, name) VALUES ($1, $2, 'thread')`, [
      threadId,
      mine.account.id,
    ]);
    await db.query(
      `INSERT INTO conversations (id, account_id, connection_id, channel, contact_id, address, updated_at)
       VALUES ($1, $2, $1, 'telegram', $1, 'thread', '2020-01-01')`,
      [threadId, mine.account.id],
    );
    await db.query(
      `INSERT INTO conversation_messages (id, conversation_id, account_id, direction, provider_message_id, status,
                                          content, channel_timestamp)
       SELECT x.id, $2, $3, 'in', x.id::text, 'RECEIVED', '{"type": "text", "text": "hi"}', x.at
         FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, at timestamptz)`,
      [JSON.stringify(messages), threadId, mine.account.id],
    );
    stored.push({
      id: threadId,
      at: '2020-01-01T00:00:00.000000Z',
      status: 'open',
      assignee: null,
      channel: 'telegram',
      labels: [],
      unread: 0,
    });
  });

  afterAll(async () => {
    await db?.destroy();
    await platform?.stop();
  });

  /** Every page of the list with `filter`, `limit` at a time: the ids in the order given. */
  const walk = async (filter: string, limit: number) => {
    const ids: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 200; pages++) {
      const res = await get(`/v1/conversations?limit=${limit}${filter}${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      ids.push(...(res.body.data as Json[]).map((c) => c.id as string));
      cursor = res.body.next_cursor as string | null;
      if (!cursor) return ids;
    }
    throw new Error('the pages never ended');
  };
  const newestFirst = (keep: (c: Stored) => boolean) =>
    stored
      .filter(keep)
      .sort((a, b) => (a.at === b.at ? (a.id < b.id ? 1 : -1) : a.at < b.at ? 1 : -1))
      .map((c) => c.id);

  it.each([
    ['no filter', '', () => true],
    ['status', '&status=pending', (c: Stored) => c.status === 'pending'],
    ['assignee', '&assignee=agent-2', (c: Stored) => c.assignee === 'agent-2'],
    ['an assignee with none', '&assignee=agent-9', () => false],
    ['channel', '&channel=max', (c: Stored) => c.channel === 'max'],
    ['a common label', '&label=billing', (c: Stored) => c.labels.includes('billing')],
    ['a rare label', '&label=rare', (c: Stored) => c.labels.includes('rare')],
    ['unread', '&unread=true', (c: Stored) => c.unread > 0],
    ['read', '&unread=false', (c: Stored) => c.unread === 0],
    [
      'updated_since',
      `&updated_since=${Date.UTC(2026, 0, 1, 0, 0, 20) / 1000}`,
      (c: Stored) => c.at >= '2026-01-01T00:00:20',
    ],
    [
      'several filters',
      '&status=open&label=vip&channel=whatsapp',
      (c: Stored) => c.status === 'open' && c.labels.includes('vip') && c.channel === 'whatsapp',
    ],
  ])('lists with %s: each page the next ones in order, every one once', async (_, filter, keep) => {
    const expected = newestFirst(keep);
    if (filter !== '&assignee=agent-9') expect(expected.length).toBeGreaterThan(0);
    expect(await walk(filter, 7)).toEqual(expected);
    expect(await walk(filter, 100)).toEqual(expected);
  });

  it("pages a conversation's messages back from the latest and forward from any message", async () => {
    const inOrder = [...messages].sort((a, b) => (a.at === b.at ? (a.id < b.id ? -1 : 1) : a.at < b.at ? -1 : 1));
    const ids = inOrder.map((m) => m.id);
    const back: string[] = [];
    let res = await get(`/v1/conversations/${threadId}/messages?limit=9`);
    for (;;) {
      expect(res.status).toBe(200);
      back.unshift(...(res.body.data as Json[]).map((m) => m.id as string));
      if (!res.body.next_cursor) break;
      res = await get(`/v1/conversations/${threadId}/messages?limit=9&before=${res.body.next_cursor}`);
    }
    expect(back).toEqual(ids);

    const from = 61;
    const forward: string[] = [];
    res = await get(`/v1/conversations/${threadId}/messages?limit=9&after=${ids[from]}`);
    for (;;) {
      expect(res.status).toBe(200);
      forward.push(...(res.body.data as Json[]).map((m) => m.id as string));
      if (!res.body.next_cursor) break;
      res = await get(`/v1/conversations/${threadId}/messages?limit=9&after=${res.body.next_cursor}`);
    }
    expect(forward).toEqual(ids.slice(from + 1));
    const before = await get(`/v1/conversations/${threadId}/messages?limit=5&before=${ids[from]}`);
    expect((before.body.data as Json[]).map((m) => m.id)).toEqual(ids.slice(from - 5, from));

    // A message of another conversation is no cursor of this one.
    const other = stored[0].id;
    const bad = await get(`/v1/conversations/${other}/messages?before=${ids[0]}`);
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([{ field: 'before', message: 'before must be a message id of the conversation' }]);
  });
});
