import { Client } from 'pg';
import { EventEnvelope, Topology } from '@app/contracts';
import { NatsClients } from '@app/messaging';

const FINAL = ['DELIVERED', 'READ', 'FAILED'];

/** What the api's tables say about the accepted messages and each user's money. */
export interface Ledger {
  /** Accepted message ids with no final status, with the status they have (or `missing`). */
  notFinal: { id: string; status: string }[];
  /** Users whose credited total differs from available + held + captured. */
  moneyMismatches: { userId: string; credited: string; available: string; held: string; captured: string }[];
  /** Holds still HELD, with their message's status. */
  held: { messageId: string; status: string; failureCode: string | null }[];
  /** Messages per status (accepted ones). */
  byStatus: Record<string, number>;
  /** Messages that ended FAILED because nothing reported them (`no_receipt`). */
  noReceipt: number;
}

export async function readLedger(databaseUrl: string, messageIds: string[], userIds: string[]): Promise<Ledger> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const rows = (
      await db.query<{ id: string; status: string; failure_code: string | null }>(
        'SELECT id, status, failure_code FROM api.messages WHERE id = ANY($1::text[])',
        [messageIds],
      )
    ).rows;
    const found = new Map(rows.map((r) => [r.id, r]));
    const notFinal = messageIds
      .map((id) => ({ id, status: found.get(id)?.status ?? 'missing' }))
      .filter((m) => !FINAL.includes(m.status));
    const byStatus: Record<string, number> = {};
    for (const r of rows) byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
    const money = (
      await db.query<{
        user_id: string;
        credited: string;
        available: string;
        held: string;
        captured: string;
        ok: boolean;
      }>(
        `SELECT b.user_id, t.credited::text, b.available::text, b.held::text, t.captured::text,
                t.credited = b.available + b.held + t.captured AS ok
           FROM api.balances b
           JOIN (SELECT user_id,
                        coalesce(sum(amount) FILTER (WHERE status = 'CREDITED'), 0) AS credited,
                        coalesce(-sum(amount) FILTER (WHERE status <> 'CREDITED'), 0) AS captured
                   FROM api.transactions GROUP BY user_id) t ON t.user_id = b.user_id
          WHERE b.user_id = ANY($1::uuid[])`,
        [userIds],
      )
    ).rows;
    const held = (
      await db.query<{ message_id: string; status: string; failure_code: string | null }>(
        `SELECT h.message_id, m.status, m.failure_code FROM api.holds h JOIN api.messages m ON m.id = h.message_id
          WHERE h.status = 'HELD' AND h.user_id = ANY($1::uuid[])`,
        [userIds],
      )
    ).rows;
    return {
      notFinal,
      moneyMismatches: money
        .filter((m) => !m.ok)
        .map(({ ok: _ok, user_id, ...rest }) => ({ userId: user_id, ...rest })),
      held: held.map((h) => ({ messageId: h.message_id, status: h.status, failureCode: h.failure_code })),
      byStatus,
      noReceipt: rows.filter((r) => r.failure_code === 'no_receipt').length,
    };
  } finally {
    await db.end();
  }
}

/**
 * What the webhooks service recorded for these events: each delivery row and its attempts, one
 * line per event (to tell, when a subscriber got an event twice, whether it was fanned out twice,
 * retried after a failure it recorded, or sent again with nothing recorded).
 */
export async function webhookHistory(databaseUrl: string, eventIds: string[]): Promise<Map<string, string>> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const rows = (
      await db.query<{ event_id: string; line: string }>(
        `SELECT d.event_id,
                'delivery ' || d.id || ' ' || d.status || ' attempts ' || d.attempts || ': ' ||
                coalesce(string_agg('#' || a.attempt || ' ' || a.status || ' ' || coalesce(a.response_status::text, '-') ||
                  ' ' || coalesce(a.error, '') || ' at ' || to_char(a.created_at, 'HH24:MI:SS.MS'), '; '
                  ORDER BY a.attempt), 'none recorded') AS line
           FROM webhooks.deliveries d
           LEFT JOIN webhooks.delivery_attempts a ON a.delivery_id = d.id
          WHERE d.event_id = ANY($1::text[])
          GROUP BY d.event_id, d.id, d.status, d.attempts`,
        [eventIds],
      )
    ).rows;
    const out = new Map<string, string>();
    for (const r of rows) out.set(r.event_id, [out.get(r.event_id), r.line].filter(Boolean).join(' | '));
    return out;
  } finally {
    await db.end();
  }
}

/** Every event the platform published, from the EVENTS stream (an ordered consumer from the start). */
export async function readAllEvents(natsUrl: string): Promise<EventEnvelope[]> {
  const clients = await NatsClients.connect({ url: natsUrl, name: 'chaos-events-reader' });
  try {
    const stream = new Topology('').stream('events');
    const info = await (await clients.jsm()).streams.info(stream);
    const consumer = await clients.js.consumers.get(stream);
    const out: EventEnvelope[] = [];
    while (out.length < info.state.messages) {
      const batch = await consumer.fetch({ max_messages: 500, expires: 2000 });
      let got = 0;
      for await (const m of batch) {
        out.push(m.json<EventEnvelope>());
        got++;
      }
      if (got === 0) break;
    }
    return out;
  } finally {
    await clients.drain();
  }
}

/**
 * The requests whose message reached the channel more than once. Channel calls (per message id)
 * are grouped by the request that made the message: its user and `Idempotency-Key` (a campaign's
 * recipient is `campaign:<id>:<seq>`), or the message alone when it has no key. Two messages made
 * for one key (a first answer lost, then its retry) count together: one request, two calls.
 */
export async function requestsReachedTwice(
  databaseUrl: string,
  callsPerMessage: Map<string, number>,
): Promise<{ requests: number; twice: string[] }> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query<{ id: string; user_id: string; idempotency_key: string | null }>(
      'SELECT id, user_id, idempotency_key FROM api.messages WHERE id = ANY($1::text[])',
      [[...callsPerMessage.keys()]],
    );
    const requestOf = new Map(rows.map((r) => [r.id, r.idempotency_key ? `${r.user_id} ${r.idempotency_key}` : r.id]));
    const perRequest = new Map<string, { calls: number; ids: string[] }>();
    for (const [id, calls] of callsPerMessage) {
      const request = requestOf.get(id) ?? id;
      const entry = perRequest.get(request) ?? { calls: 0, ids: [] };
      entry.calls += calls;
      entry.ids.push(id);
      perRequest.set(request, entry);
    }
    const twice = [...perRequest.entries()]
      .filter(([, r]) => r.calls > 1)
      .map(([request, r]) => `${request}: ${r.calls} calls (${r.ids.join(', ')})`);
    return { requests: perRequest.size, twice };
  } finally {
    await db.end();
  }
}
