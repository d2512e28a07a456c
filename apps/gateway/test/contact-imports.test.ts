import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { createDataSource } from '@app/database';
import { waitFor } from '@app/testing';
import { ApiFactory } from '../../../test/support/factories';
import { Platform, startPlatform } from '../../../test/support/platform';
import { AccountsRepository } from '../src/accounts/accounts.repository';
import { gatewaySchema } from '../src/database/schema';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const ROWS = 100_000;
/** Every 100th row is bad, in one of several ways: 1 %. */
const BAD_EVERY = 100;
const BAD_CELLS: [string, (i: number) => string][] = [
  ['identities.whatsapp', (i) => `crm-${i},Name ${i},+7999${i},,,,,,`],
  ['time_zone', (i) => `crm-${i},Name ${i},,${i},,Mars/Olympus,,,`],
  ['language', (i) => `crm-${i},Name ${i},,${i},,,English,,`],
  ['row', () => `,Nobody,,,,,,,`],
  ['row', (i) => `crm-${i},too,few`],
];

/**
 * Bulk contact imports through the gateway: a 100,000-row CSV with 1 % bad rows reports exactly
 * those rows (number, field, reason); the same file again changes nothing; NDJSON upserts by
 * identity and records consent, which an import cannot lift; an export imports back unchanged.
 */
describe('contact imports', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let token: string;
  let otherToken: string;
  let gatewayDb: DataSource;
  const importsDir = mkdtempSync(join(tmpdir(), 'contact-imports-suite-'));

  const call = async (
    path: string,
    init: { method?: string; token?: string; body?: string; type?: string; accept?: string } = {},
  ) => {
    const res = await fetch(`${platform.urls.gateway}${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: {
        Authorization: `Bearer ${init.token ?? token}`,
        ...(init.type ? { 'Content-Type': init.type } : {}),
        ...(init.accept ? { Accept: init.accept } : {}),
      },
      ...(init.body !== undefined ? { body: init.body } : {}),
    });
    const text = await res.text();
    const json = /json/.test(res.headers.get('content-type') ?? '') && text ? (JSON.parse(text) as Json) : null;
    return { status: res.status, headers: res.headers, body: json as Json, text };
  };
  const finished = (id: string) =>
    waitFor(
      async () => {
        const res = await call(`/v1/contacts/imports/${id}`);
        return ['completed', 'failed'].includes(res.body.state) ? res.body : false;
      },
      240_000,
      `import ${id} finished`,
      250,
    );
  const importFile = async (body: string, type = 'text/csv') => {
    const res = await call('/v1/contacts/imports', { body, type });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ state: 'processing' });
    return finished(res.body.id as string);
  };
  /** Every rejection of an import, following the pages. */
  const allRejections = async (id: string) => {
    const out: Json[] = [];
    let after: number | null = 0;
    while (after !== null) {
      const page = await call(`/v1/contacts/imports/${id}?after_row=${after}`);
      out.push(...(page.body.rejections as Json[]));
      after = page.body.next_after_row as number | null;
    }
    return out;
  };

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'contact-imports',
      services: ['api', 'gateway'],
      env: {
        RATE_LIMIT_PER_SECOND: '100000',
        RATE_LIMIT_BURST: '100000',
        CONTACT_IMPORT_MAX_BYTES: '20000000',
        CONTACT_IMPORTS_DIR: importsDir,
        CONTACT_IMPORTS_SWEEP_MS: '500',
      },
    });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    const user = await factory.user('system');
    gatewayDb = createDataSource(platform.infra.databaseUrl, gatewaySchema, 1);
    await gatewayDb.initialize();
    const accounts = new AccountsRepository(gatewayDb);
    token = (await accounts.createAccount('imports', user.userId)).token;
    otherToken = (await accounts.createAccount('other', (await factory.user('system')).userId)).token;
  });

  afterAll(async () => {
    await gatewayDb?.destroy();
    await factory?.close();
    await platform?.stop();
    rmSync(importsDir, { recursive: true, force: true });
  });

  it('a 100,000-row CSV with 1 % bad rows reports exactly those rows; the same file again changes nothing', async () => {
    const lines = ['external_id,name,whatsapp,telegram,max,time_zone,language,lists,attr.plan'];
    const bad = new Map<number, string>();
    for (let i = 1; i <= ROWS; i++) {
      if (i % BAD_EVERY === 0) {
        const [field, cells] = BAD_CELLS[(i / BAD_EVERY) % BAD_CELLS.length];
        bad.set(i, field);
        lines.push(cells(i));
      } else {
        lines.push(`crm-${i},Name ${i},7999${String(i).padStart(7, '0')},${i},,Europe/Moscow,ru,clients;wave-1,gold`);
      }
    }
    const csv = `${lines.join('\n')}\n`;
    const first = await importFile(csv);
    expect(first).toMatchObject({
      state: 'completed',
      rows_read: ROWS,
      created: ROWS - bad.size,
      updated: 0,
      unchanged: 0,
      rejected: bad.size,
      failure: null,
    });
    const rejections = await allRejections(first.id as string);
    expect(new Set(rejections.map((r) => r.row))).toEqual(new Set(bad.keys()));
    for (const r of rejections) {
      expect(r.field).toBe(bad.get(r.row as number));
      expect(typeof r.reason).toBe('string');
    }
    const one = await call('/v1/contacts/ext:crm-7');
    expect(one.body).toMatchObject({
      name: 'Name 7',
      identities: { whatsapp: '79990000007', telegram: '7', max: null },
      time_zone: 'Europe/Moscow',
      lists: ['clients', 'wave-1'],
      attributes: { plan: 'gold' },
    });

    const again = await importFile(csv);
    expect(again).toMatchObject({
      state: 'completed',
      rows_read: ROWS,
      created: 0,
      updated: 0,
      unchanged: ROWS - bad.size,
      rejected: bad.size,
    });
    expect((await call('/v1/contacts/ext:crm-7')).body.updated_at).toBe(one.body.updated_at);
  }, 600_000);

  it('NDJSON upserts by identity, records consent, and an import cannot lift an opt-out', async () => {
    const ndjson = [
      JSON.stringify({ identities: { telegram: '880001' }, name: 'Gleb', consent: { marketing: 'opted_out' } }),
      '',
      JSON.stringify({ identities: { telegram: '880001', max: '990001' }, attributes: { tier: 2 } }),
      'not json',
      JSON.stringify({ external_id: 'nd-1', consent: { marketing: 'maybe' } }),
    ].join('\n');
    const report = await importFile(ndjson, 'application/x-ndjson');
    // The blank line is no row (but keeps its number: rows are numbered by line).
    expect(report).toMatchObject({ state: 'completed', rows_read: 4, created: 1, updated: 1, rejected: 2 });
    expect(report.rejections).toEqual([
      { row: 4, external_id: null, field: 'row', reason: 'is not valid JSON' },
      {
        row: 5,
        external_id: 'nd-1',
        field: 'consent.marketing',
        reason: 'must be one of opted_in, opted_out, unknown',
      },
    ]);
    const listed = await call('/v1/contacts?channel=max&q=gleb');
    const gleb = listed.body.data[0] as Json;
    expect(gleb).toMatchObject({ identities: { telegram: '880001', max: '990001' }, attributes: { tier: 2 } });
    const consent = await call(`/v1/contacts/${gleb.id}/consent`);
    expect(consent.body.states).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ channel: 'telegram', purpose: 'marketing', state: 'opted_out', source: 'import' }),
      ]),
    );

    // A later import cannot silently re-enable marketing: the contact is imported, the change refused.
    const lift = await importFile(
      JSON.stringify({ identities: { telegram: '880001' }, consent: { marketing: 'opted_in' } }),
      'application/x-ndjson',
    );
    expect(lift).toMatchObject({ unchanged: 1, consent_refused: 1 });
    expect(lift.rejections[0]).toMatchObject({ row: 1, field: 'consent.marketing' });
    expect(lift.rejections[0].reason).toMatch(/an import cannot change that/);
    const after = await call(`/v1/contacts/${gleb.id}/consent`);
    expect(after.body.states).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ channel: 'telegram', purpose: 'marketing', state: 'opted_out' }),
      ]),
    );
  });

  it('exports the contacts as CSV that imports back unchanged', async () => {
    const exported = await call('/v1/contacts?list=wave-1&q=Name 1', { accept: 'text/csv' });
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-type')).toMatch(/^text\/csv/);
    const rows = exported.text.trim().split('\n');
    expect(rows[0]).toBe(
      'id,external_id,name,whatsapp,whatsapp:user_id,whatsapp:username,telegram,telegram:username,max,time_zone,language,lists,attr.plan,attr.tier,created_at,updated_at',
    );
    expect(rows.length).toBeGreaterThan(1000);
    // Times are Unix seconds, as in every answer of the gateway.
    const now = Date.now() / 1000;
    for (const t of rows[1].split(',').slice(-2).map(Number)) expect(Math.abs(t - now)).toBeLessThan(600);
    expect(rows[1]).toMatch(/,\d{10},\d{10}$/);
    const back = await importFile(exported.text);
    expect(back).toMatchObject({ state: 'completed', rows_read: rows.length - 1, created: 0, updated: 0, rejected: 0 });
  });

  it('refuses a bad header, another content type, a file over the size limit, and another account', async () => {
    const header = await importFile('external_id,email\nx,a@b.c\n');
    expect(header).toMatchObject({ state: 'failed', failure: 'unknown column "email" in the header', rows_read: 0 });
    expect((await call('/v1/contacts/imports', { body: '{}', type: 'application/json' })).status).toBe(415);
    expect((await call('/v1/contacts', { body: 'a,b', type: 'text/csv' })).status).toBe(415);
    const huge = await call('/v1/contacts/imports', { body: 'x'.repeat(21_000_000), type: 'text/csv' });
    expect(huge.status).toBe(413);
    expect(huge.headers.get('content-type')).toMatch(/problem\+json/);
    // Sent in chunks with no Content-Length: read to the end, nothing kept past the limit, then 413.
    const chunked = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < 21; i++) c.enqueue(new Uint8Array(1_000_000).fill(120));
        c.close();
      },
    });
    const streamed = await fetch(`${platform.urls.gateway}/v1/contacts/imports`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'text/csv' },
      body: chunked,
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    const mine = await call('/v1/contacts/imports', { body: 'external_id\nz-1\n', type: 'text/csv' });
    expect((await call(`/v1/contacts/imports/${mine.body.id}`, { token: otherToken })).status).toBe(403);
    expect((await call('/v1/contacts/imports/0192f0c4-a0f8-7cc3-a1f0-e4d2b3c4d5e6')).status).toBe(404);
    expect((await call(`/v1/contacts/imports/${mine.body.id}?after_row=x`)).status).toBe(400);
  });

  it('keeps the attribute cap on the contact as merged, and a row with a NUL is rejected alone', async () => {
    const attrs = (from: number) =>
      Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${from + i}`, 'v'.repeat(250)]));
    const lines = [
      { external_id: 'cap-1', attributes: attrs(0) },
      { external_id: 'cap-1', attributes: attrs(20) },
      { external_id: 'cap-1', attributes: attrs(40) },
      { external_id: 'nul-\u0000-1', name: 'Nul' },
      { external_id: 'nul-2', name: 'N\u0000' },
      { external_id: 'after-nul', name: 'Kept' },
    ].map((l) => JSON.stringify(l));
    const done = await importFile(lines.join('\n'), 'application/x-ndjson');
    expect(done).toMatchObject({ state: 'completed', rows_read: 6, created: 2, updated: 1, rejected: 3 });
    expect((await allRejections(done.id as string)).map((r) => [r.row, r.field])).toEqual([
      [3, 'attributes'],
      [4, 'external_id'],
      [5, 'name'],
    ]);
    const capped = await call('/v1/contacts/ext:cap-1');
    expect(Object.keys(capped.body.attributes as Json)).toHaveLength(40);
    expect((await call('/v1/contacts/ext:after-nul')).body).toMatchObject({ name: 'Kept' });
  });

  it('pages contacts at their largest by bytes: fewer rows a page, every contact once', async () => {
    const big = Array.from({ length: 120 }, (_, i) =>
      JSON.stringify({
        external_id: `big-${i}`,
        lists: ['big'],
        attributes: Object.fromEntries(Array.from({ length: 50 }, (_, k) => [`key_${k}`, 'x'.repeat(256)])),
      }),
    );
    expect(await importFile(big.join('\n'), 'application/x-ndjson')).toMatchObject({ created: 120, rejected: 0 });
    const seen: string[] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    do {
      const page = await call(`/v1/contacts?list=big&limit=100${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      sizes.push((page.body.data as Json[]).length);
      seen.push(...(page.body.data as Json[]).map((c) => c.external_id as string));
      cursor = page.body.next_cursor as string | null;
    } while (cursor);
    expect(Math.max(...sizes)).toBeLessThan(100);
    expect(new Set(seen).size).toBe(120);
    expect(seen).toHaveLength(120);
  });

  it("refuses an account's imports past the most it may have under way with 503 and Retry-After", async () => {
    // Two uploads held open: both imports are receiving until their bodies end.
    const ends: (() => void)[] = [];
    const held = [0, 1].map((i) => {
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(new TextEncoder().encode(`external_id\nheld-${i}-a\n`));
          ends.push(() => {
            c.enqueue(new TextEncoder().encode(`held-${i}-b\n`));
            c.close();
          });
        },
      });
      return fetch(`${platform.urls.gateway}/v1/contacts/imports`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${otherToken}`, 'Content-Type': 'text/csv' },
        body,
        duplex: 'half',
      } as RequestInit);
    });
    await waitFor(
      async () =>
        Number(
          (
            await gatewayDb.query(
              `SELECT count(*) AS n FROM contact_imports i JOIN accounts a ON a.id = i.account_id
                WHERE a.name = 'other' AND i.state = 'receiving'`,
            )
          )[0].n,
        ) === 2,
      30_000,
      'two imports receiving',
      100,
    );
    const third = await call('/v1/contacts/imports', {
      body: 'external_id\nthird\n',
      type: 'text/csv',
      token: otherToken,
    });
    expect(third.status).toBe(503);
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(third.headers.get('content-type')).toMatch(/problem\+json/);
    // Another account is not held back by this one.
    expect((await call('/v1/contacts/imports', { body: 'external_id\nmine\n', type: 'text/csv' })).status).toBe(202);
    ends.forEach((end) => end());
    for (const res of await Promise.all(held)) {
      expect(res.status).toBe(202);
      const body = (await res.json()) as Json;
      const after = await call(`/v1/contacts/imports/${body.id}`, { token: otherToken });
      expect(after.body.state).not.toBe('failed');
    }
  });

  it('fails an import whose process is gone and removes the files of ended imports, while running', async () => {
    const [account] = (await gatewayDb.query(`SELECT id FROM accounts WHERE name = 'imports'`)) as { id: string }[];
    const orphan = uuidv7();
    const ended = uuidv7();
    await gatewayDb.query(
      `INSERT INTO contact_imports (id, account_id, format, state, heartbeat_at)
       VALUES ($1, $3, 'csv', 'processing', now() - interval '1 hour'), ($2, $3, 'csv', 'completed', now())`,
      [orphan, ended, account.id],
    );
    writeFileSync(join(importsDir, `${orphan}.csv`), 'external_id\nlost\n');
    writeFileSync(join(importsDir, `${ended}.csv`), 'external_id\nleft\n');
    const gone = await waitFor(
      async () => {
        const res = await call(`/v1/contacts/imports/${orphan}`);
        const files = readdirSync(importsDir);
        return res.body.state === 'failed' && !files.includes(`${orphan}.csv`) && !files.includes(`${ended}.csv`)
          ? res.body
          : false;
      },
      30_000,
      'the orphaned import failed and both files removed',
      200,
    );
    expect(gone.failure).toMatch(/interrupted/);
  });

  it('reads phone numbers as people write them, national ones in the account region, and names rejected rows by their external id', async () => {
    const created = await call('/v1/contacts', {
      body: JSON.stringify({ external_id: 'phone-1', identities: { whatsapp: '+7 (912) 345-67-01' } }),
      type: 'application/json',
    });
    expect(created.status).toBe(201);
    expect(created.body.identities.whatsapp).toBe('79123456701');
    const national = JSON.stringify({ external_id: 'phone-2', identities: { whatsapp: '(555) 123-4567' } });
    const refused = await call('/v1/contacts', { body: national, type: 'application/json' });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([
      { field: 'identities.whatsapp', message: expect.stringMatching(/default region/) },
    ]);

    await gatewayDb.query(`UPDATE accounts SET default_region = 'US' WHERE name = 'imports'`);
    const inRegion = await call('/v1/contacts', { body: national, type: 'application/json' });
    expect(inRegion.body.identities.whatsapp).toBe('15551234567');
    const done = await importFile(
      [
        'external_id,name,whatsapp,telegram,max,time_zone,language,lists,attr.plan',
        'phone-3,Ann,+44 20 7946 0958,,,,,,',
        'phone-4,Bob,(555) 123-4568,,,,,,',
        'phone-5,Eve,+7 999,,,,,,',
      ].join('\n'),
    );
    expect(done).toMatchObject({ state: 'completed', created: 2, rejected: 1 });
    expect(done.rejections).toEqual([
      { row: 3, external_id: 'phone-5', field: 'identities.whatsapp', reason: expect.stringMatching(/phone number/) },
    ]);
    expect((await call('/v1/contacts/ext:phone-3')).body.identities.whatsapp).toBe('442079460958');
    expect((await call('/v1/contacts/ext:phone-4')).body.identities.whatsapp).toBe('15551234568');
    // The same person written another way is the same contact: an identity is matched as stored.
    const again = await importFile('external_id,whatsapp\n,+1 555-123-4568\n');
    expect(again).toMatchObject({ state: 'completed', created: 0, rejected: 0, unchanged: 1 });
  });
});
