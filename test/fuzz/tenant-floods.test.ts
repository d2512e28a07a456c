import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { DataSource } from 'typeorm';
import { createDataSource } from '@app/database';
import { sleep, waitFor } from '@app/testing';
import { AccountsRepository } from '../../apps/gateway/src/accounts/accounts.repository';
import { gatewaySchema } from '../../apps/gateway/src/database/schema';
import { CompiledPlatform, startCompiledPlatform } from '../support/compiled-platform';
import { ApiFactory } from '../support/factories';
import { ServiceName } from '../support/platform-env';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * One tenant flooding the gateway every tenant shares with its own contacts, on the services as
 * deployed (compiled, each its own process with the production heap, as hostile-bodies runs them).
 * Account A imports a contact with 50,000 attributes, estimates and launches campaigns over 2,000
 * contacts at the maximum size, exports them 16 times at once and imports 13 MB files 8 at once.
 * Each flood is answered (or held back with 503 and Retry-After, never a 500), while every process
 * keeps answering its /healthz within a second and account B's contacts keep listing; no process dies.
 */

const SERVICES: ServiceName[] = ['sandbox', 'webhooks', 'gateway', 'queue', 'api'];
const ROWS = 1_000;
const ATTRIBUTES = 50;
/** The longest attribute value a contact may have. */
const MAX_VALUE = 256;
/** The bound the suite exists for: a process of the platform answers `/healthz` within it, however A floods. */
const HEALTHZ_BOUND_MS = 1_000;
/** B asks for its contacts this often during a flood, and so is /healthz of every process. */
const SAMPLE_EVERY_MS = 200;
/** How long B's list may take before it counts as not answered. */
const BYSTANDER_PATIENCE_MS = 5_000;
const B_CONTACTS = 5;
/** A refusal for now, as expected of a flood's request: 503 that says when to retry. */
const heldBackAnswer = { status: 503, retryAfter: expect.stringMatching(/^\d+$/) };

/** 50 attributes `<prefix>0` … `<prefix>49`, each value `length` characters. */
const attributesOf = (prefix: string, length: number, tag: string) =>
  Object.fromEntries(
    Array.from({ length: ATTRIBUTES }, (_, j) => [`${prefix}${j}`, `${tag}-${j}-`.padEnd(length, 'v')]),
  );

/** An answer of the gateway to A during a flood, for the "never a 500" check (0: no answer at all). */
interface Answer {
  what: string;
  status: number;
  retryAfter: string | null;
  error?: string;
}

/** What the sampler saw during a flood. */
interface Watched {
  /** Each process's slowest `/healthz` answer (ms); one still unanswered when the flood ended counts so far. */
  slowestMs: Partial<Record<ServiceName, number>>;
  /** `/healthz` asked and not answered 200. */
  unanswered: { name: ServiceName; answer: number | string }[];
  /** B's lists that did not answer 200 with its contacts. */
  bystanderFailures: { answer: number | string; ms: number }[];
  bystanderAsked: number;
}

describe('one tenant flooding the shared gateway with its own contacts', () => {
  let platform: CompiledPlatform;
  let gatewayDb: DataSource;
  let dir: string;
  let accountA: string;
  let tokenA: string;
  let tokenB: string;
  let answers: Answer[] = [];

  const gateway = (path: string) => `${platform.urls.gateway}${path}`;
  const auth = (token: string) => ({ authorization: `Bearer ${token}` });

  /** Writes an NDJSON file of `rows` lines, `line(i)` for i from 1; its path. */
  const ndjsonFile = (name: string, rows: number, line: (i: number) => Json) => {
    const path = join(dir, name);
    writeFileSync(path, `${Array.from({ length: rows }, (_, k) => JSON.stringify(line(k + 1))).join('\n')}\n`);
    return path;
  };

  /**
   * Sends one of A's requests and reads its answer with `read`, recording its status for the
   * "never a 500" check; status 0 when no whole answer came (the connection dropped, or too late).
   */
  const sendA = async <T>(
    what: string,
    send: (signal: AbortSignal) => Promise<Response>,
    read: (res: Response) => Promise<T>,
    timeoutMs = 60_000,
  ): Promise<{ status: number; retryAfter: string | null; type: string; value: T | null }> => {
    try {
      const res = await send(AbortSignal.timeout(timeoutMs));
      const value = await read(res);
      const answer = { what, status: res.status, retryAfter: res.headers.get('retry-after') };
      answers.push(answer);
      return { ...answer, type: res.headers.get('content-type') ?? '', value };
    } catch (err) {
      answers.push({ what, status: 0, retryAfter: null, error: String((err as Error).cause ?? err) });
      return { status: 0, retryAfter: null, type: '', value: null };
    }
  };
  const json = async (res: Response): Promise<Json> => {
    const text = await res.text();
    return /json/.test(res.headers.get('content-type') ?? '') && text ? (JSON.parse(text) as Json) : {};
  };

  /** Calls the gateway as A with a JSON body (or none): the answer, its body parsed. */
  const callA = async (what: string, method: string, path: string, body?: unknown, timeoutMs?: number) => {
    const res = await sendA(
      what,
      (signal) =>
        fetch(gateway(path), {
          method,
          headers: { ...auth(tokenA), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal,
        }),
      json,
      timeoutMs,
    );
    return { ...res, body: res.value ?? {} };
  };

  /** Streams an NDJSON file from disk as A's import. */
  const importA = async (what: string, path: string) => {
    const res = await sendA(
      what,
      (signal) =>
        fetch(gateway('/v1/contacts/imports'), {
          method: 'POST',
          headers: { ...auth(tokenA), 'content-type': 'application/x-ndjson' },
          body: Readable.toWeb(createReadStream(path)) as ReadableStream<Uint8Array>,
          duplex: 'half',
          signal,
        } as RequestInit),
      json,
      120_000,
    );
    return { ...res, body: res.value ?? {} };
  };

  /** Waits until A's import is no longer processing: its report. */
  const finished = (id: string, timeoutMs = 120_000) =>
    waitFor(
      async () => {
        if (platform.exited().some((e) => e.name === 'gateway')) return { state: 'unknown: the gateway exited' };
        const res = await callA('import status', 'GET', `/v1/contacts/imports/${id}`);
        if (res.status !== 200) throw new Error(`import ${id}: ${res.status}`);
        return res.body.state === 'processing' ? false : res.body;
      },
      timeoutMs,
      `import ${id} finished`,
      250,
    );

  /** A refusal for now: 503 that says when to retry. */
  const heldBack = (a: { status: number; retryAfter: string | null }) => a.status === 503 && a.retryAfter !== null;

  /**
   * Asks `/healthz` of every process and B's contacts every 200 ms (each one at a time, so a slow
   * answer is measured whole, not hidden behind the next ask) until stopped.
   */
  const watch = () => {
    const stopped = new AbortController();
    const seen: Watched = { slowestMs: {}, unanswered: [], bystanderFailures: [], bystanderAsked: 0 };
    /** The answer and how long it took; null when the flood ended while it was awaited. */
    const ask = async (url: string, init: RequestInit, patienceMs: number) => {
      const started = performance.now();
      try {
        const res = await fetch(url, {
          ...init,
          signal: AbortSignal.any([stopped.signal, AbortSignal.timeout(patienceMs)]),
        });
        const text = await res.text();
        return { answer: res.status, text, ms: performance.now() - started };
      } catch (err) {
        const ms = performance.now() - started;
        if (stopped.signal.aborted) return { answer: null, text: '', ms };
        const why = (err as Error).name === 'TimeoutError' ? `no answer within ${patienceMs} ms` : String(err);
        return { answer: why, text: '', ms };
      }
    };
    const every = async (sample: () => Promise<void>) => {
      while (!stopped.signal.aborted) {
        const started = performance.now();
        await sample();
        await sleep(Math.max(0, SAMPLE_EVERY_MS - (performance.now() - started)));
      }
    };
    const loops = [
      ...SERVICES.map((name) =>
        every(async () => {
          const r = await ask(`${platform.urls[name]}/healthz`, {}, 600_000);
          seen.slowestMs[name] = Math.max(seen.slowestMs[name] ?? 0, Math.round(r.ms));
          if (r.answer !== null && r.answer !== 200) seen.unanswered.push({ name, answer: r.answer });
        }),
      ),
      every(async () => {
        const r = await ask(gateway('/v1/contacts'), { headers: auth(tokenB) }, BYSTANDER_PATIENCE_MS);
        if (r.answer === null) return;
        seen.bystanderAsked++;
        const listed = r.answer === 200 ? ((JSON.parse(r.text) as Json).data as unknown[]).length : null;
        if (listed !== B_CONTACTS) seen.bystanderFailures.push({ answer: r.answer, ms: Math.round(r.ms) });
      }),
    ];
    return {
      async stop(): Promise<Watched> {
        stopped.abort();
        await Promise.all(loops);
        return seen;
      },
    };
  };

  /**
   * Runs a flood under the sampler, then checks that no process died, every `/healthz` answered
   * within the bound, B was served each time and A got no 500 (nor a request left unanswered);
   * a flood that threw is reported after those, the flood's own result otherwise.
   */
  const flooding = async <T>(name: string, flood: () => Promise<T>): Promise<T> => {
    answers = [];
    const watcher = watch();
    let outcome: { value: T } | { error: unknown };
    try {
      outcome = { value: await flood() };
    } catch (error) {
      outcome = { error };
    }
    const seen = await watcher.stop();
    // A process that stopped answering may have died a moment before its exit is seen here.
    if (seen.unanswered.length) await waitFor(() => platform.exited().length > 0, 10_000).catch(() => undefined);
    const tally = answers.reduce<Record<string, number>>((t, a) => ({ ...t, [a.status]: (t[a.status] ?? 0) + 1 }), {});
    console.log(`${name}: slowest /healthz ${JSON.stringify(seen.slowestMs)} ms; A's answers ${JSON.stringify(tally)}`);
    expect({
      exited: platform.exited(),
      slowHealthz: Object.entries(seen.slowestMs)
        .filter(([, ms]) => ms >= HEALTHZ_BOUND_MS)
        .map(([service, ms]) => ({ service, ms })),
      unanswered: seen.unanswered.slice(0, 10),
      bystanderFailures: seen.bystanderFailures.slice(0, 10),
      serverErrors: answers.filter((a) => a.status === 0 || (a.status >= 500 && !heldBack(a))).slice(0, 10),
    }).toEqual({ exited: [], slowHealthz: [], unanswered: [], bystanderFailures: [], serverErrors: [] });
    expect(seen.bystanderAsked).toBeGreaterThan(0);
    await platform.expectAllServing();
    if ('error' in outcome) throw outcome.error;
    return outcome.value;
  };

  /** A's 2,000 contacts at the maximum (50 attributes of 256 characters), imported once: their ids. */
  let atMaximum: Promise<string[]> | undefined;
  const contactsAtMaximum = () =>
    (atMaximum ??= (async () => {
      for (const part of [0, 1]) {
        const file = ndjsonFile(`max-${part}.ndjson`, ROWS, (i) => {
          const n = part * ROWS + i;
          return {
            external_id: `max-${n}`,
            name: `Customer ${n}`,
            identities: { whatsapp: `7990${String(n).padStart(7, '0')}` },
            attributes: attributesOf('k', MAX_VALUE, `c${n}`),
          };
        });
        const started = await importA('setup import', file);
        expect(started.status).toBe(202);
        expect(await finished(started.body.id as string)).toMatchObject({ state: 'completed', created: ROWS });
      }
      const rows = (await gatewayDb.query(
        `SELECT id FROM contacts WHERE account_id = $1 AND external_id LIKE 'max-%' ORDER BY id`,
        [accountA],
      )) as { id: string }[];
      return rows.map((r) => r.id);
    })());

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tenant-floods-'));
    platform = await startCompiledPlatform({
      suite: 'tenant-floods',
      services: SERVICES,
      // Its own folder: a gateway of another suite on this machine removes stored uploads it does not know.
      env: { CONTACT_IMPORTS_DIR: join(dir, 'stored-imports') },
    });
    const factory = await ApiFactory.connect(platform.infra.databaseUrl);
    gatewayDb = createDataSource(platform.infra.databaseUrl, gatewaySchema, 1);
    await gatewayDb.initialize();
    const accounts = new AccountsRepository(gatewayDb);
    try {
      // A can estimate and launch: a balance, an active WhatsApp app linked, a MARKETING template in it.
      const userA = await factory.user('system', { balance: 1000 });
      const app = await factory.activeApp(userA.userId, { message_limit: 'TIER_UNLIMITED' });
      await factory.sendableTemplate(app.id, { name: 'promo', category: 'MARKETING', body: 'Hello {{1}}' });
      const a = await accounts.createAccount('attacker', userA.userId);
      accountA = a.account.id;
      tokenA = a.token;
      const linked = await callA('link', 'POST', '/v1/connections', { channel: 'whatsapp', app_id: app.id });
      expect(linked.status).toBe(201);

      const userB = await factory.user('system', { balance: 10 });
      tokenB = (await accounts.createAccount('bystander', userB.userId)).token;
      for (let i = 1; i <= B_CONTACTS; i++) {
        const res = await fetch(gateway('/v1/contacts'), {
          method: 'POST',
          headers: { ...auth(tokenB), 'content-type': 'application/json' },
          body: JSON.stringify({ external_id: `b-${i}`, name: `Bystander ${i}`, attributes: { plan: 'basic' } }),
        });
        expect(res.status).toBe(201);
      }
    } finally {
      await factory.close();
    }
  }, 240_000);

  // A flood that killed or stalled a process leaves it to this flood alone: the next starts on a
  // platform whose every process serves.
  beforeEach(async () => {
    await platform.restartUnhealthy();
  }, 120_000);

  afterAll(async () => {
    await gatewayDb?.destroy();
    await platform?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('1. a 13 MB import merging 50,000 attributes into one contact: it keeps 50, rejects the rest, and still lists', async () => {
    // Every row names the same contact and adds 50 attributes of its own.
    const file = ndjsonFile('hoard.ndjson', ROWS, (i) => ({
      external_id: 'hoarder',
      attributes: attributesOf(`r${i}_`, 250, `r${i}`),
    }));
    const { report, pages } = await flooding('1. attribute merge', async () => {
      const started = await importA('hoard import', file);
      expect(started.status).toBe(202);
      const done = await finished(started.body.id as string, 150_000);
      const listed = await Promise.all(
        Array.from({ length: 4 }, () => callA('list', 'GET', '/v1/contacts?limit=100', undefined, 120_000)),
      );
      return { report: done, pages: listed };
    });
    expect(pages.map((p) => p.status)).toEqual([200, 200, 200, 200]);

    expect(report).toMatchObject({ state: 'completed', failure: null, rows_read: ROWS, created: 1 });
    const rejections: Json[] = [];
    for (let after: number | null = 0; after !== null;) {
      const page = await callA('rejections', 'GET', `/v1/contacts/imports/${report.id}?after_row=${after}`);
      rejections.push(...(page.body.rejections as Json[]));
      after = page.body.next_after_row as number | null;
    }
    const contact = await callA('hoarder', 'GET', '/v1/contacts/ext:hoarder');
    const keys = Object.keys(contact.body.attributes as Json);
    expect(keys.length).toBeLessThanOrEqual(ATTRIBUTES);
    // Each row either gave the contact its attributes or was rejected for them: none is lost silently.
    const applied = new Set(keys.map((k) => Number(/^r(\d+)_/.exec(k)?.[1])));
    expect(rejections.every((r) => r.field === 'attributes')).toBe(true);
    const rejected = new Set(rejections.map((r) => r.row as number));
    expect([...applied].filter((row) => rejected.has(row))).toEqual([]);
    expect(applied.size + rejected.size).toBe(ROWS);
    expect(report.rejected).toBe(rejected.size);
  }, 420_000);

  it('2. estimates and launches over 10,000 contacts at the maximum, two at once: answered, or held back with Retry-After', async () => {
    const ids = await contactsAtMaximum();
    // A year ahead: a launch schedules the campaign and nothing is sent during the suite.
    const startAt = new Date(Date.now() + 365 * 86_400_000).toISOString();
    const draft = async () => {
      const res = await callA('create', 'POST', '/v1/campaigns', {
        name: 'Everyone, five times',
        template: 'promo',
        language: 'en',
        params: ['{{contact.attributes.k0}}'],
        audience: { contact_ids: [...ids, ...ids, ...ids, ...ids, ...ids] },
        channels: ['whatsapp'],
        schedule: { start_at: startAt },
      });
      expect(res.status).toBe(201);
      return res.body.id as string;
    };
    const [estimated, first, second] = [await draft(), await draft(), await draft()];

    const { estimates, launches } = await flooding('2. estimates and launches', async () => ({
      estimates: await Promise.all(
        [estimated, estimated].map((id) =>
          callA('estimate', 'POST', `/v1/campaigns/${id}/estimate`, undefined, 150_000),
        ),
      ),
      launches: await Promise.all(
        [first, second].map((id) => callA('launch', 'POST', `/v1/campaigns/${id}/launch`, undefined, 150_000)),
      ),
    }));

    for (const e of estimates) {
      if (e.status === 200) {
        expect(e.body).toMatchObject({ audience: 5 * ids.length, recipients: ids.length });
        expect(e.body.excluded).toMatchObject({ duplicate: 4 * ids.length });
      } else expect({ status: e.status, retryAfter: e.retryAfter }).toEqual(heldBackAnswer);
    }
    expect(estimates.some((e) => e.status === 200)).toBe(true);
    for (const [i, l] of launches.entries()) {
      if (l.status === 200) expect(l.body).toMatchObject({ state: 'scheduled', recipients: 5 * ids.length });
      else {
        expect({ status: l.status, retryAfter: l.retryAfter }).toEqual(heldBackAnswer);
        // Held back, the campaign is still a draft to launch again.
        expect((await callA('draft', 'GET', `/v1/campaigns/${[first, second][i]}`)).body.state).toBe('draft');
      }
    }
    expect(launches.some((l) => l.status === 200)).toBe(true);
  }, 420_000);

  it('3. 16 CSV exports at once: each the whole file, or held back with Retry-After', async () => {
    await contactsAtMaximum();
    const [{ n: contacts }] = (await gatewayDb.query('SELECT count(*)::int AS n FROM contacts WHERE account_id = $1', [
      accountA,
    ])) as { n: number }[];

    /** One export, its lines counted as they arrive (never the whole file in memory here). */
    const exportA = () =>
      sendA(
        'export',
        (signal) => fetch(gateway('/v1/contacts'), { headers: { ...auth(tokenA), accept: 'text/csv' }, signal }),
        async (res) => {
          let lines = 0;
          let head = '';
          let endsWithNewline = false;
          for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
            if (head.length < 64) head += Buffer.from(chunk.subarray(0, 64)).toString();
            for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++;
            if (chunk.length) endsWithNewline = chunk[chunk.length - 1] === 10;
          }
          return { lines, head, endsWithNewline };
        },
        180_000,
      );
    const exports = await flooding('3. CSV exports', () => Promise.all(Array.from({ length: 16 }, exportA)));

    for (const e of exports) {
      if (e.status === 200) {
        // A header line, then one line per contact (no value holds a line break).
        const { head, lines, endsWithNewline } = e.value!;
        expect({ type: e.type, head: head.slice(0, 15), lines, whole: endsWithNewline }).toEqual({
          type: expect.stringMatching(/^text\/csv/),
          head: 'id,external_id,',
          lines: contacts + 1,
          whole: true,
        });
      } else expect({ status: e.status, retryAfter: e.retryAfter }).toEqual(heldBackAnswer);
    }
    expect(exports.some((e) => e.status === 200)).toBe(true);
  }, 420_000);

  it('4. eight 13 MB imports at once: each accepted and completed, or held back with Retry-After', async () => {
    const files = Array.from({ length: 8 }, (_, f) =>
      ndjsonFile(`bulk-${f}.ndjson`, ROWS, (i) => ({
        external_id: `bulk-${f}-${i}`,
        attributes: attributesOf('a', 250, `b${f}-${i}`),
      })),
    );
    const reports = await flooding('4. imports at once', async () => {
      const started = await Promise.all(files.map((file) => importA('bulk import', file)));
      return Promise.all(
        started.map(async (s) => ({ ...s, report: s.status === 202 ? await finished(s.body.id as string) : null })),
      );
    });
    for (const r of reports) {
      if (r.status === 202) expect(r.report).toMatchObject({ state: 'completed', created: ROWS, rejected: 0 });
      else expect({ status: r.status, retryAfter: r.retryAfter }).toEqual(heldBackAnswer);
    }
    expect(reports.some((r) => r.status === 202)).toBe(true);
  }, 420_000);
});
