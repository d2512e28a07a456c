// The transactions list through the api's GET /api/v1/users/{id}/transactions, streamed page by
// page from a user's history of 1,000,000 charges (2,000 in a smoke run), by an api process run
// as the image runs it (compiled, the services' 88 MiB heap): the rows/s one reader gets walking
// the whole history in the largest pages, against the same pages read straight from PostgreSQL by
// this process and serialized whole (no HTTP: the baseline is favoured), and the api's peak
// resident memory while 20 readers each read the largest page at once, against its memory at rest.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Pool } from 'pg';
import { migrateSchema } from '@app/database';
import { startTestInfra, waitFor } from '@app/testing';
import type { TransactionRow } from '../../apps/api/src/billing/balances.repository';
import { TRANSACTIONS_PAGE } from '../../apps/api/src/users/dto/list-transactions.query';
import { transactionDto } from '../../apps/api/src/users/users.service';
import { startCompiledService } from '../../test/support/compiled-service';
import { ApiFactory } from '../../test/support/factories';
import { platformEnv } from '../../test/support/platform-env';
import { ALL_SCHEMAS } from '../schemas';
import { Bench } from './report';

const FROM = '2026-01-01';
const READERS = 20;

/** Resident memory of a process in MiB (Linux /proc). */
function rssMib(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return kb ? Number(kb[1]) / 1024 : NaN;
}

/** Reads one page as it streams; its row count and the next page's URL. */
async function readPage(apiUrl: string, url: string, auth: string): Promise<{ rows: number; next: string | null }> {
  const res = await fetch(url, { headers: { authorization: auth } });
  if (res.status !== 200) throw new Error(`transactions answered ${res.status}: ${await res.text()}`);
  let separators = 0;
  let tail = '';
  for await (const chunk of res.body ?? []) {
    const seam = tail + Buffer.from(chunk as Uint8Array).toString('utf8');
    separators += seam.split('},{').length - 1;
    tail = seam.slice(-2);
  }
  const link = res.headers.get('link');
  return { rows: separators + 1, next: link ? `${apiUrl}${/^<([^>]+)>/.exec(link)![1]}` : null };
}

export const transactionsBench: Bench = async (opts) => {
  const history = opts.smoke ? 2_000 : 1_000_000;
  process.env.NATS_URL ??= opts.natsUrl;
  process.env.DATABASE_URL ??= opts.databaseUrl;
  const infra = await startTestInfra({ suite: 'bench-transactions', autovacuum: true });
  for (const def of ALL_SCHEMAS) await migrateSchema(infra.databaseUrl, def);
  const { urls, adminUrls, env } = await platformEnv(infra, {
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_SECOND: '100000',
    RATE_LIMIT_BURST: '100000',
  });
  const factory = await ApiFactory.connect(infra.databaseUrl);
  const pool = new Pool({ connectionString: infra.databaseUrl, max: 1, options: '-c search_path=api' });
  const api = startCompiledService('api', { ...env, ADMIN_PORT: new URL(adminUrls.api).port });
  try {
    const user = await factory.user('system');
    const seedStart = performance.now();
    await factory.transactionHistory(user.userId, history, { from: `${FROM}T00:00:00Z` });
    const seedSeconds = (performance.now() - seedStart) / 1000;
    await waitFor(
      async () => (await fetch(`${adminUrls.api}/readyz`).catch(() => null))?.ok === true,
      120_000,
      'the api ready',
      200,
    );
    const first = `${urls.api}/api/v1/users/${user.userId}/transactions?start_date=${FROM}&limit=${TRANSACTIONS_PAGE.max}`;

    // One reader walking the history in the largest pages, from the start again at its end.
    await readPage(urls.api, first, user.auth); // warm-up
    let rows = 0;
    let url: string | null = first;
    const started = performance.now();
    while (performance.now() - started < opts.seconds * 1000) {
      const page: { rows: number; next: string | null } = await readPage(urls.api, url ?? first, user.auth);
      rows += page.rows;
      url = page.next;
    }
    const perSecond = rows / ((performance.now() - started) / 1000);

    // The baseline: the same pages read whole by one query each and serialized at once.
    let baselineRows = 0;
    let after = '-1';
    const baselineStart = performance.now();
    while (performance.now() - baselineStart < opts.seconds * 1000) {
      const { rows: page } = await pool.query<TransactionRow>(
        `SELECT id::text AS id, app_id, amount::text AS amount, currency, status, category, recipient_phone,
                ((extract(epoch FROM created_at) * 1000000)::bigint)::text AS micros
         FROM transactions
         WHERE user_id = $1 AND created_at > 'epoch'::timestamptz + $2::bigint * interval '1 microsecond'
           AND created_at <= now()
         ORDER BY created_at, id LIMIT $3`,
        [user.userId, after, TRANSACTIONS_PAGE.max],
      );
      JSON.stringify(page.map(transactionDto));
      baselineRows += page.length;
      after = page.length === TRANSACTIONS_PAGE.max ? page[page.length - 1].micros : '-1';
    }
    const baselinePerSecond = baselineRows / ((performance.now() - baselineStart) / 1000);

    // Memory: at rest, then its peak while READERS read the largest page at once.
    const pid = api.child.pid!;
    const atRest = rssMib(pid);
    let peak = atRest;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMib(pid))), 50);
    const concurrentStart = performance.now();
    let concurrentRows = 0;
    try {
      const pages = await Promise.all(Array.from({ length: READERS }, () => readPage(urls.api, first, user.auth)));
      concurrentRows = pages.reduce((n, p) => n + p.rows, 0);
    } finally {
      clearInterval(sampler);
    }
    const concurrentSeconds = (performance.now() - concurrentStart) / 1000;
    if (api.child.exitCode !== null) throw new Error(`the api died: ${api.stderrTail()}`);
    const detail = {
      history,
      page_rows: Math.min(history, TRANSACTIONS_PAGE.max),
      seed_seconds: Math.round(seedSeconds),
      rows_read: rows,
      baseline_rows_read: baselineRows,
    };
    return [
      {
        bench: 'transactions',
        figure: `transactions/s one reader gets walking a ${history.toLocaleString('en')}-charge history in pages of ${TRANSACTIONS_PAGE.max.toLocaleString('en')} through the HTTP endpoint`,
        value: perSecond,
        unit: 'rows/s',
        baseline: {
          name: 'the same pages read whole by one query each straight from PostgreSQL and serialized at once (no HTTP)',
          value: baselinePerSecond,
        },
        ratio: perSecond / baselinePerSecond,
        detail,
      },
      {
        bench: 'transactions',
        figure: `api peak RSS MiB while ${READERS} readers each read a page of ${Math.min(history, TRANSACTIONS_PAGE.max).toLocaleString('en')} at once (lower is better)`,
        value: peak,
        unit: 'MiB',
        baseline: { name: 'the api at rest, RSS MiB', value: atRest },
        ratio: peak / atRest,
        detail: {
          rows: concurrentRows,
          seconds: Math.round(concurrentSeconds * 10) / 10,
          rows_per_second: Math.round(concurrentRows / concurrentSeconds),
        },
      },
    ];
  } finally {
    await api.stop();
    await pool.end();
    await factory.close();
    await infra.stop();
  }
};
