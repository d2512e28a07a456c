import { parse } from 'csv-parse/sync';
import { Client } from 'pg';
import { createDataSource } from '@app/database';
import { waitFor } from '@app/testing';
import { AccountsRepository } from '../../apps/gateway/src/accounts/accounts.repository';
import { gatewaySchema } from '../../apps/gateway/src/database/schema';
import type { ApiFactory } from './factories';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface GatewayAnswer {
  status: number;
  headers: Headers;
  body: Json;
  text: string;
}

/** A gateway account (its token) linked to a user, written through the gateway's own repository (as the CLI does). */
export async function gatewayAccount(databaseUrl: string, name: string, userId: string): Promise<string> {
  const db = createDataSource(databaseUrl, gatewaySchema, 1);
  await db.initialize();
  try {
    return (await new AccountsRepository(db).createAccount(name, userId)).token;
  } finally {
    await db.destroy();
  }
}

/** Calls the gateway as one account: status, headers, the body parsed when it is JSON, and its text. */
export function gatewayClient(baseUrl: string, token: string) {
  return async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<GatewayAnswer> => {
    const raw = typeof body === 'string';
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined ? { 'content-type': raw ? 'application/x-ndjson' : 'application/json' } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : raw ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: Json = {};
    if (text && (res.headers.get('content-type') ?? '').includes('json')) parsed = JSON.parse(text) as Json;
    return { status: res.status, headers: res.headers, body: parsed, text };
  };
}

export type GatewayCall = ReturnType<typeof gatewayClient>;

/** A contact row of an NDJSON import (the fields of POST /v1/contacts, and `consent`). */
export interface ContactRow {
  external_id: string;
  name?: string;
  identities: Partial<Record<'whatsapp' | 'telegram' | 'max', string>>;
  time_zone?: string;
  lists?: string[];
  attributes?: Record<string, string | number>;
  consent?: { marketing?: 'opted_out' | 'opted_in'; all?: 'opted_out' | 'opted_in' };
}

/**
 * Imports contacts through POST /v1/contacts/imports (NDJSON) and waits until the import completed
 * with every row taken: its report.
 */
export async function importContacts(call: GatewayCall, rows: ContactRow[], timeoutMs = 120_000): Promise<Json> {
  const started = await call('POST', '/v1/contacts/imports', rows.map((r) => JSON.stringify(r)).join('\n'));
  if (started.status !== 202) throw new Error(`import refused: ${started.status} ${started.text}`);
  const report = await waitFor(
    async () => {
      const r = await call('GET', `/v1/contacts/imports/${started.body.id}`);
      return r.body.state === 'processing' ? false : r.body;
    },
    timeoutMs,
    `the import of ${rows.length} contacts`,
    200,
  );
  if (report.state !== 'completed' || report.rejected !== 0) {
    throw new Error(`import not clean: ${JSON.stringify(report).slice(0, 1000)}`);
  }
  return report;
}

/** Every recipient of a campaign's report, page by page (JSON), in audience order. */
export async function recipientsReport(call: GatewayCall, campaignId: string, query = ''): Promise<Json[]> {
  const out: Json[] = [];
  let after: number | null = null;
  for (;;) {
    const page = await call(
      'GET',
      `/v1/campaigns/${campaignId}/recipients?limit=1000${query ? `&${query}` : ''}${after !== null ? `&after=${after}` : ''}`,
    );
    if (page.status !== 200) throw new Error(`recipients report: ${page.status} ${page.text}`);
    out.push(...(page.body.data as Json[]));
    after = page.body.next_after as number | null;
    if (after === null) return out;
  }
}

/** The recipients report as CSV (`Accept: text/csv`), parsed into records keyed by the header row. */
export async function recipientsCsv(call: GatewayCall, campaignId: string): Promise<Record<string, string>[]> {
  const res = await call('GET', `/v1/campaigns/${campaignId}/recipients`, undefined, { accept: 'text/csv' });
  if (res.status !== 200) throw new Error(`recipients CSV: ${res.status} ${res.text}`);
  if (!(res.headers.get('content-type') ?? '').startsWith('text/csv')) {
    throw new Error(`recipients CSV answered ${res.headers.get('content-type')}`);
  }
  return parse(res.text, { columns: true, skip_empty_lines: true }) as Record<string, string>[];
}

/** What the api's tables say of a campaign's messages: each recipient's attempts, charges and holds. */
export interface CampaignLedger {
  /** Messages (first attempts) per recipient seq: a seq with two is a recipient sent twice. */
  messagesPerSeq: Map<number, number>;
  /** First attempts (a failover's later attempts belong to their first: message_attempts.parent_id) with the campaign id. */
  messages: number;
  /** Every row with the campaign id (failover attempts included). */
  rows: number;
  /** Holds of the campaign's messages still HELD. */
  held: number;
  /** Sum of what was charged for the campaign's messages. */
  charged: number;
  /** Recipient rows per state. */
  recipientStates: Record<string, number>;
}

/**
 * Reads a campaign's messages in the api's tables by campaign_id: whether any recipient got two
 * messages (by the recipient row each first attempt is marked on), holds left and charges.
 */
export async function campaignLedger(databaseUrl: string, campaignId: string): Promise<CampaignLedger> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    // Each recipient's addresses, then the campaign's first attempts to them: a hash join, not a
    // scan of the campaign's messages per recipient.
    const perSeq = await db.query<{ seq: number; n: number }>(
      `WITH addresses AS (
         SELECT r.seq, s->>'to' AS address
           FROM api.campaign_recipients r, jsonb_array_elements(r.route) s
          WHERE r.campaign_id = $1
       )
       SELECT a.seq, count(DISTINCT m.id)::int AS n
         FROM addresses a
         JOIN api.messages m ON m.campaign_id = $1 AND m.recipient = a.address
                AND NOT EXISTS (SELECT 1 FROM api.message_attempts t WHERE t.message_id = m.id AND t.parent_id <> m.id)
        GROUP BY a.seq`,
      [campaignId],
    );
    const totals = await db.query<{ rows: number; held: number; charged: string }>(
      `SELECT count(*)::int AS rows,
              (SELECT count(*)::int FROM api.holds h JOIN api.messages hm ON hm.id = h.message_id
                WHERE hm.campaign_id = $1 AND h.status = 'HELD') AS held,
              coalesce(sum(m.charged), 0)::text AS charged
         FROM api.messages m WHERE m.campaign_id = $1`,
      [campaignId],
    );
    const states = await db.query<{ state: string; n: number }>(
      `SELECT state, count(*)::int AS n FROM api.campaign_recipients WHERE campaign_id = $1 GROUP BY state`,
      [campaignId],
    );
    const messagesPerSeq = new Map(perSeq.rows.map((r) => [r.seq, r.n]));
    return {
      messagesPerSeq,
      messages: [...messagesPerSeq.values()].reduce((a, b) => a + b, 0),
      rows: totals.rows[0].rows,
      held: totals.rows[0].held,
      charged: Number(totals.rows[0].charged),
      recipientStates: Object.fromEntries(states.rows.map((r) => [r.state, r.n])),
    };
  } finally {
    await db.end();
  }
}

/** A campaign as the gateway shows it (GET /v1/campaigns/{id}). */
export const campaignView = async (call: GatewayCall, id: string) => {
  const res = await call('GET', `/v1/campaigns/${id}`);
  expect(res.status).toBe(200);
  return res.body;
};
/** A draft campaign of the `promo` template, greeting each contact by name, as `definition` says. */
export const createCampaign = async (call: GatewayCall, definition: Json) => {
  const res = await call('POST', '/v1/campaigns', {
    template: 'promo',
    language: 'en',
    params: ['{{contact.name}}'],
    ...definition,
  });
  expect(res.status).toBe(201);
  expect(res.body.state).toBe('draft');
  return res.body;
};
export const launchCampaign = async (call: GatewayCall, id: string) => {
  const res = await call('POST', `/v1/campaigns/${id}/launch`);
  expect(res.status).toBe(200);
  return res.body;
};
/** The campaign once it reaches `state`. */
export const untilCampaignState = (call: GatewayCall, id: string, state: string, timeoutMs = 60_000) =>
  waitFor(
    async () => {
      const c = await campaignView(call, id);
      return c.state === state ? c : false;
    },
    timeoutMs,
    `campaign ${id} ${state}`,
    100,
  );

/** How many times each address occurs. */
export const perAddress = (addresses: string[]) => {
  const out = new Map<string, number>();
  for (const a of addresses) out.set(a, (out.get(a) ?? 0) + 1);
  return out;
};

/** What was charged for these messages, from the account's delivery report (GET /v1/messages, every page). */
export async function chargedOf(call: GatewayCall, ids: Set<string>): Promise<{ total: number; found: number }> {
  let total = 0;
  let found = 0;
  let cursor: string | null = null;
  do {
    const page = await call('GET', `/v1/messages?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
    for (const m of page.body.data as Json[]) {
      if (!ids.has(m.id as string)) continue;
      found += 1;
      total += Number(m.charged ?? 0);
    }
    cursor = page.body.next_cursor as string | null;
  } while (cursor);
  return { total, found };
}

/** Moves the clock a day on for one app's tier window and one campaign: what a day of waiting does. */
export async function shiftDay(factory: ApiFactory, appId: number, campaignId: string): Promise<void> {
  const sql = (q: string, params: unknown[]) => factory.dataSource.query(q, params);
  await sql(
    `UPDATE tier_recipients SET first_sent_at = first_sent_at - interval '24 hours',
            last_sent_at = last_sent_at - interval '24 hours' WHERE app_id = $1`,
    [appId],
  );
  await sql(
    `UPDATE campaign_recipients SET next_at = next_at - interval '24 hours' WHERE campaign_id = $1 AND state = 'pending'`,
    [campaignId],
  );
  await sql(
    `UPDATE campaigns SET whatsapp_wait_until = whatsapp_wait_until - interval '24 hours'
      WHERE id = $1 AND whatsapp_wait_until IS NOT NULL`,
    [campaignId],
  );
}
