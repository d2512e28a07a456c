// The 31-day usage report through the api's GET /api/v1/users/{id}/usage, read from the hourly
// counters, against the same report computed by a GROUP BY scan of the messages table (the query
// sent straight to PostgreSQL by this process, its rows serialized as the endpoint would: no HTTP,
// so the baseline is favoured), measured in the same run on the same database: 1,000,000 messages
// of one user over 31 days (10,000 in a smoke run) on three channels and four categories, and the
// hourly rows those messages produce.
import { performance } from 'node:perf_hooks';
import { Pool } from 'pg';
import { HOUR_ISO, StoredUsage, usageRowOf } from '../../apps/api/src/usage/usage.repository';
import { ApiFactory } from '../../test/support/factories';
import { Bench, percentile } from './report';
import { spawnPlatform } from './spawned-platform';

const FROM = '2026-01-01';
const TO = '2026-02-01';
const CONCURRENCY = 1;

/** What each message has become, by its channel: a share failed, the rest sent, delivered or read. */
const SEED_MESSAGES = `
  INSERT INTO messages (id, user_id, app_id, channel, recipient, kind, category, priority, status, price, currency,
                        created_at, updated_at)
  SELECT 'seed-' || g, $1::uuid, NULL, s.channel, '4470' || lpad((g % 50000)::text, 8, '0'),
         CASE WHEN s.category = 'SERVICE' THEN 'TEXT' ELSE 'TEMPLATE' END, s.category,
         CASE WHEN s.category = 'MARKETING' THEN 'marketing' ELSE 'service' END,
         CASE WHEN g % 20 = 0 THEN 'FAILED'
              WHEN s.channel <> 'whatsapp' OR g % 10 = 1 THEN 'SENT'
              WHEN g % 10 < 5 THEN 'DELIVERED' ELSE 'READ' END,
         CASE s.category WHEN 'MARKETING' THEN 0.05 WHEN 'SERVICE' THEN 0 ELSE 0.02 END, 'USD', s.at, s.at
  FROM generate_series(0, $2::int - 1) AS g,
       LATERAL (SELECT (ARRAY['whatsapp', 'telegram', 'max'])[1 + g % 3] AS channel,
                       (ARRAY['MARKETING', 'UTILITY', 'AUTHENTICATION', 'SERVICE'])[1 + (g / 3) % 4] AS category,
                       $3::timestamptz + (g::float8 / $2::int) * interval '31 days' AS at) s`;

/**
 * The report by a GROUP BY scan of the messages: the counters each message's status stands for
 * (sent covers what went further; cost is the price of what was charged: delivered or read, or sent
 * on a channel without receipts). The seed writes the hourly rows with the same query, so both
 * sides answer the same rows.
 */
const SCAN = `
  SELECT m.user_id, date_trunc('hour', m.created_at, 'UTC') AS hour, m.channel, m.category,
         count(*) AS queued,
         count(*) FILTER (WHERE m.status IN ('SENT', 'DELIVERED', 'READ')) AS sent,
         count(*) FILTER (WHERE m.status IN ('DELIVERED', 'READ')) AS delivered,
         count(*) FILTER (WHERE m.status = 'READ') AS read,
         count(*) FILTER (WHERE m.status = 'FAILED') AS failed,
         coalesce(sum(m.price) FILTER (WHERE m.status IN ('DELIVERED', 'READ')
                                        OR (m.status = 'SENT' AND m.channel IN ('telegram', 'max'))), 0) AS cost
  FROM messages m
  WHERE m.user_id = $1 AND m.created_at >= $2 AND m.created_at < $3
  GROUP BY 1, 2, 3, 4`;

const BASELINE = `
  SELECT ${HOUR_ISO} AS hour, channel, category,
         queued::text, sent::text, delivered::text, read::text, failed::text, cost::text
  FROM (${SCAN}) r ORDER BY r.hour, r.channel, r.category`;

interface Phase {
  perSecond: number;
  p50: number;
  p99: number;
  requests: number;
}

/** `CONCURRENCY` callers (one: the time a report takes to answer), each asking for one report after another for `seconds`. */
async function closedLoop(seconds: number, once: () => Promise<void>): Promise<Phase> {
  await once(); // warm-up
  const latencies: number[] = [];
  const start = performance.now();
  const until = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < until) {
        const t = performance.now();
        await once();
        latencies.push(performance.now() - t);
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  return {
    perSecond: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    requests: latencies.length,
  };
}

export const usageBench: Bench = async (opts) => {
  const messages = opts.smoke ? 10_000 : 1_000_000;
  const platform = await spawnPlatform(opts, {
    suite: 'bench-usage',
    services: ['api'],
    // No settlement pass: it would fail the seeded messages still at SENT as no_receipt while the
    // bench writes their hourly rows, and the report would no longer match the scan.
    env: { RATE_LIMIT_PER_SECOND: '100000', RATE_LIMIT_BURST: '100000', SETTLEMENT_INTERVAL_MS: '0' },
  });
  const factory = await ApiFactory.connect(platform.infra.databaseUrl);
  // The api's tables live in its own schema.
  const pool = new Pool({
    connectionString: platform.infra.databaseUrl,
    max: CONCURRENCY,
    options: '-c search_path=api',
  });
  try {
    const user = await factory.user('system', { balance: 1 });
    const seedStart = performance.now();
    await pool.query(SEED_MESSAGES, [user.userId, messages, `${FROM}T00:00:00Z`]);
    await pool.query(
      `INSERT INTO usage_hourly (user_id, hour, channel, category, queued, sent, delivered, read, failed, cost)
       ${SCAN}`,
      [user.userId, `${FROM}T00:00:00Z`, `${TO}T00:00:00Z`],
    );
    await pool.query('VACUUM ANALYZE messages');
    await pool.query('VACUUM ANALYZE usage_hourly');
    const seedSeconds = (performance.now() - seedStart) / 1000;
    const url = `${platform.urls.api}/api/v1/users/${user.userId}/usage?from=${FROM}&to=${TO}`;

    let rows = 0;
    let queued = 0;
    const report = await closedLoop(opts.seconds, async () => {
      const res = await fetch(url, { headers: { authorization: user.auth } });
      if (res.status !== 200) throw new Error(`usage report answered ${res.status}: ${await res.text()}`);
      const body = (await res.json()) as { data: { queued: number }[] };
      rows = body.data.length;
      queued = body.data.reduce((n, r) => n + r.queued, 0);
    });
    let scannedRows = 0;
    const baseline = await closedLoop(opts.seconds, async () => {
      const result = await pool.query<StoredUsage>(BASELINE, [user.userId, `${FROM}T00:00:00Z`, `${TO}T00:00:00Z`]);
      const data = result.rows.map((r) => ({ ...usageRowOf(r), currency: 'USD' }));
      JSON.stringify({ data });
      scannedRows = data.length;
    });
    if (rows !== scannedRows || queued !== messages) {
      throw new Error(`the report (${rows} rows, ${queued} messages) differs from the scan (${scannedRows} rows)`);
    }
    const detail = {
      messages,
      report_rows: rows,
      concurrency: CONCURRENCY,
      seed_seconds: Math.round(seedSeconds),
      p50_ms: Math.round(report.p50 * 10) / 10,
      p99_ms: Math.round(report.p99 * 10) / 10,
      requests: report.requests,
      baseline_p50_ms: Math.round(baseline.p50 * 10) / 10,
      baseline_p99_ms: Math.round(baseline.p99 * 10) / 10,
      baseline_requests: baseline.requests,
    };
    return [
      {
        bench: 'usage',
        figure: `31-day usage reports/s through the HTTP endpoint, ${messages.toLocaleString('en')} messages, one caller at a time`,
        value: report.perSecond,
        unit: 'req/s',
        baseline: {
          name: 'the same report by a GROUP BY scan of messages, straight to PostgreSQL',
          value: baseline.perSecond,
        },
        ratio: report.perSecond / baseline.perSecond,
        detail,
      },
      {
        bench: 'usage',
        figure: `31-day usage report p99 ms through the HTTP endpoint, ${messages.toLocaleString('en')} messages (lower is better)`,
        value: report.p99,
        unit: 'ms',
        baseline: { name: 'the GROUP BY scan of messages, p99 ms', value: baseline.p99 },
        ratio: report.p99 / baseline.p99,
        detail: { p50_ms: detail.p50_ms, baseline_p50_ms: detail.baseline_p50_ms },
      },
    ];
  } finally {
    await pool.end();
    await factory.close();
    await platform.stop();
  }
};
