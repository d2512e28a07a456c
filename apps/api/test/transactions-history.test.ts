import { readFileSync } from 'node:fs';
import { waitFor } from '@app/testing';
import { CompiledService, startCompiledService } from '../../../test/support/compiled-service';
import { ApiFactory, TestUser } from '../../../test/support/factories';
import { Platform, startPlatform } from '../../../test/support/platform';
import { TRANSACTIONS_PAGE } from '../src/users/dto/list-transactions.query';

const HISTORY = 1_000_000;
const READERS = 20;
/** The api container's memory limit (k8s/base/api.yaml). */
const CONTAINER_LIMIT_MIB = 384;

/** Resident memory of a process, in MiB (Linux). */
function rssMib(pid: number): number {
  try {
    const line = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return line ? Number(line[1]) / 1024 : 0;
  } catch {
    return 0; // the process is gone: the test says so
  }
}

/** Reads an answer as it streams, keeping only counts: its status, Link, rows (objects) and whether it is one array. */
async function readPage(url: string, auth: string) {
  const res = await fetch(url, { headers: { authorization: auth } });
  let rows = 0;
  let first = '';
  let last = '';
  let tail = '';
  for await (const chunk of res.body ?? []) {
    const text = Buffer.from(chunk as Uint8Array).toString('utf8');
    if (!first) first = text[0];
    // Objects are separated by "},{" (the fields hold no braces); a separator may span two chunks.
    const seam = tail + text;
    rows += seam.split('},{').length - 1;
    tail = seam.slice(-2);
    last = text[text.length - 1] ?? last;
  }
  return {
    status: res.status,
    link: res.headers.get('link'),
    rows: rows + (first === '[' && last === ']' ? 1 : 0),
    array: first === '[' && last === ']',
  };
}

/**
 * A user with a million transactions, read by 20 clients at once, each the largest page, from an
 * api process with the services' heap (88 MiB old generation): every answer is whole, the api keeps
 * answering other requests throughout and its resident memory stays within its container's limit;
 * then the whole history, page after page, is a million rows in order.
 */
describe('a million transactions', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let user: TestUser;
  let api: CompiledService | undefined;
  let base: string;

  beforeAll(async () => {
    platform = await startPlatform({ suite: 'transactions-history', services: [] });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    user = await factory.user('system');
    await factory.transactionHistory(user.userId, HISTORY, { from: '2026-01-01T00:00:00Z', everyMs: 1000 });
    api = startCompiledService('api', {
      ...platform.env,
      LOG_LEVEL: 'warn',
      ADMIN_PORT: new URL(platform.adminUrls.api).port,
    });
    api.child.once('exit', (code, signal) =>
      process.stderr.write(`api exited (${code ?? signal}): ${api?.stderrTail()}\n`),
    );
    await waitFor(
      async () => (await fetch(`${platform.adminUrls.api}/readyz`).catch(() => null))?.ok === true,
      60_000,
      'the api ready',
      200,
    );
    base = `${platform.urls.api}/api/v1/users/${user.userId}`;
  }, 240_000);

  afterAll(async () => {
    await api?.stop();
    await factory?.close();
    await platform?.stop();
  });

  it(`${READERS} concurrent reads of the largest page leave the api serving, its memory flat`, async () => {
    const pid = api!.child.pid!;
    let peak = rssMib(pid);
    const sampler = setInterval(() => (peak = Math.max(peak, rssMib(pid))), 50);
    const url = `${base}/transactions?start_date=2026-01-01&limit=${TRANSACTIONS_PAGE.max}`;
    let reading = true;
    const balances: number[] = [];
    const prober = (async () => {
      while (reading) {
        const res = await fetch(`${base}/balances`, { headers: { authorization: user.auth } });
        await res.arrayBuffer();
        balances.push(res.status);
        await new Promise((r) => setTimeout(r, 250));
      }
    })();
    try {
      const pages = await Promise.all(Array.from({ length: READERS }, () => readPage(url, user.auth)));
      for (const page of pages) {
        expect(page).toEqual({
          status: 200,
          link: expect.stringMatching(/^<\/api\/v1\/users\/[^>]+&cursor=[^>]+>; rel="next"$/),
          rows: TRANSACTIONS_PAGE.max,
          array: true,
        });
      }
    } finally {
      reading = false;
      await prober;
      clearInterval(sampler);
    }
    process.stdout.write(
      `api peak RSS during ${READERS} reads of ${TRANSACTIONS_PAGE.max} rows: ${peak.toFixed(0)} MiB\n`,
    );
    expect(api!.child.exitCode).toBeNull();
    expect(balances.length).toBeGreaterThan(0);
    expect(balances.every((s) => s === 200)).toBe(true);
    expect(peak).toBeLessThan(CONTAINER_LIMIT_MIB);
    expect((await fetch(`${platform.adminUrls.api}/readyz`)).status).toBe(200);
  }, 300_000);

  it('the whole history, page after page, is every row once', async () => {
    let url: string | null = `${base}/transactions?start_date=2026-01-01&limit=${TRANSACTIONS_PAGE.max}`;
    let total = 0;
    let pages = 0;
    while (url) {
      const page = await readPage(url, user.auth);
      expect(page.status).toBe(200);
      total += page.rows;
      pages++;
      url = page.link ? `${platform.urls.api}${/^<([^>]+)>/.exec(page.link)![1]}` : null;
    }
    expect({ total, pages }).toEqual({ total: HISTORY, pages: HISTORY / TRANSACTIONS_PAGE.max });
    expect(api!.child.exitCode).toBeNull();
  }, 300_000);
});
