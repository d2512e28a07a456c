// pnpm bench contacts: importing contacts from CSV (rows/s, each service's peak RSS against its
// memory limit), and the accept bench with the consent check against without it, same run.
import { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { once } from 'node:events';
import { Pool } from 'pg';
import { Topology } from '@app/contracts';
import { migrateSchema, createDataSource } from '@app/database';
import { DEFAULT_TOPOLOGY_OPTIONS, deleteTopology, NatsClients, setupTopology } from '@app/messaging';
import { AccountsRepository } from '../../apps/gateway/src/accounts/accounts.repository';
import { gatewaySchema } from '../../apps/gateway/src/database/schema';
import { ApiFactory } from '../../test/support/factories';
import { ALL_SCHEMAS } from '../schemas';
import { LoadResult, totalLoad as total } from './http-load';
import { Bench, BenchFigure } from './report';
import { build, load, peakRssMiB, startBuilt, stop, withDatabase } from './built-services';

/** The services' memory limit in the Kubernetes base (k8s/base/api.yaml, gateway.yaml). */
const MEMORY_LIMIT_MIB = 384;
/** Consent records already kept when the accept bench runs (the lookup is measured on a full table). */
const SEEDED_CONSENTS = 200_000;
const RECIPIENTS = 40_000;
const phone = (i: number) => `4471${String(i).padStart(8, '0')}`;

/** Writes a CSV of `rows` contacts (1 % with a marketing opt-out) to a file, streamed. */
async function writeCsv(path: string, rows: number): Promise<void> {
  const out = createWriteStream(path);
  const write = async (line: string) => {
    if (!out.write(line)) await once(out, 'drain');
  };
  await write('external_id,name,whatsapp,telegram,time_zone,language,lists,attr.plan,consent.marketing\n');
  for (let i = 1; i <= rows; i++) {
    const consent = i % 100 === 0 ? 'opted_out' : '';
    await write(
      `c-${i},Person ${i},7${String(i).padStart(10, '0')},${i},Europe/Moscow,ru,clients;wave-${i % 7},p${i % 3},${consent}\n`,
    );
  }
  out.end();
  await once(out, 'finish');
}

export const contactsBench: Bench = async (opts) => {
  build();
  const rows = opts.smoke ? 5_000 : Number(process.env.BENCH_CONTACTS_ROWS ?? 1_000_000);
  const id = randomBytes(3).toString('hex');
  const dbName = `bench_contacts_${id}`;
  const admin = new Pool({ connectionString: opts.databaseUrl, max: 1 });
  await admin.query(`CREATE DATABASE "${dbName}"`);
  await admin.end();
  const databaseUrl = withDatabase(opts.databaseUrl, dbName);
  for (const def of ALL_SCHEMAS) await migrateSchema(databaseUrl, def);
  const prefix = `bcont${id}`;
  const clients = await NatsClients.connect({ url: opts.natsUrl, name: 'bench-contacts' });
  await setupTopology(await clients.jsm(), new Topology(prefix), DEFAULT_TOPOLOGY_OPTIONS);
  const csv = join(tmpdir(), `bench-contacts-${id}.csv`);
  const children: ChildProcess[] = [];
  const env = { DATABASE_URL: databaseUrl, NATS_URL: opts.natsUrl, NATS_PREFIX: prefix };
  try {
    const factory = await ApiFactory.connect(databaseUrl);
    const user = await factory.user('system', { name: 'bench', balance: 100_000_000 });
    const app = await factory.activeApp(user.userId, { message_limit: 'TIER_100K' });
    await factory.sendableTemplate(app.id, { name: 'bench_tpl', category: 'UTILITY', body: 'Your code is ready' });
    await factory.close();
    const gatewayDb = createDataSource(databaseUrl, gatewaySchema, 1);
    await gatewayDb.initialize();
    const token = (await new AccountsRepository(gatewayDb).createAccount('bench', user.userId)).token;
    await gatewayDb.destroy();

    process.stderr.write(`writing a CSV of ${rows} contacts\n`);
    await writeCsv(csv, rows);
    const bytes = statSync(csv).size;
    const apiOn = await startBuilt('api', { ...env, CONSENT_CHECK: 'on' });
    children.push(apiOn.child);
    const gateway = await startBuilt('gateway', { ...env, CONTACT_IMPORT_MAX_BYTES: String(bytes + 1024) });
    children.push(gateway.child);

    // 1. The import: upload (streamed) to the end of the last batch.
    process.stderr.write(`importing ${rows} contacts (${Math.round(bytes / 2 ** 20)} MiB)\n`);
    const gatewayUrl = `http://127.0.0.1:${gateway.port}`;
    const started = Date.now();
    const res = await fetch(`${gatewayUrl}/v1/contacts/imports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'text/csv', 'content-length': String(bytes) },
      body: Readable.toWeb(createReadStream(csv)) as ReadableStream,
      duplex: 'half',
    } as RequestInit);
    if (res.status !== 202) throw new Error(`the import was answered ${res.status}: ${await res.text()}`);
    const importId = ((await res.json()) as { id: string }).id;
    const uploadedMs = Date.now() - started;
    let report: Record<string, unknown>;
    for (;;) {
      await new Promise((r) => setTimeout(r, 500));
      const r = await fetch(`${gatewayUrl}/v1/contacts/imports/${importId}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      report = (await r.json()) as Record<string, unknown>;
      if (report.state === 'completed' || report.state === 'failed') break;
    }
    const importMs = Date.now() - started;
    if (report.state !== 'completed') throw new Error(`the import failed: ${String(report.failure)}`);
    const rss = { gateway: peakRssMiB(gateway.child.pid!), api: peakRssMiB(apiOn.child.pid!) };

    // 2. The accept bench: the same sends to an api with the consent check and one without it,
    // in alternating slices, with SEEDED_CONSENTS records of the business kept.
    const pool = new Pool({ connectionString: databaseUrl, max: 1, options: '-c search_path=api' });
    await pool.query(
      `INSERT INTO consents (user_id, channel, address_key, purpose, state, source, since)
       SELECT $1, 'whatsapp', md5('seed' || g) || md5('key' || g), 'marketing', 'opted_out', 'import', now()
         FROM generate_series(1, ${SEEDED_CONSENTS}) g ON CONFLICT DO NOTHING`,
      [user.userId],
    );
    await pool.query(`VACUUM ANALYZE consents`);
    await pool.end();
    const apiOff = await startBuilt('api', { ...env, CONSENT_CHECK: 'off' });
    children.push(apiOff.child);
    let offset = 0;
    const body = () =>
      JSON.stringify({
        phone: phone(offset++ % RECIPIENTS),
        type: 'TEMPLATE',
        template: { name: 'bench_tpl' },
      });
    const rounds = opts.smoke ? 1 : Number(process.env.BENCH_ROUNDS ?? 3);
    const slice = opts.seconds / rounds / 2;
    const cases = { on: apiOn.port, off: apiOff.port };
    const slices: Record<keyof typeof cases, LoadResult[]> = { on: [], off: [] };
    for (let round = 1; round <= rounds; round++) {
      // Alternate which goes first, so neither always runs on the warmer machine.
      const order: (keyof typeof cases)[] = round % 2 ? ['off', 'on'] : ['on', 'off'];
      for (const name of order) {
        process.stderr.write(`round ${round}/${rounds}: consent check ${name}, ${slice} s\n`);
        const url = `http://127.0.0.1:${cases[name]}/api/v1/wa/apps/${app.id}/messages`;
        slices[name].push(await load(url, user.auth, slice, body));
      }
    }
    const [on, off] = [total(slices.on), total(slices.off)];
    const figures: BenchFigure[] = [
      {
        bench: 'contacts',
        figure: `contacts imported from CSV, ${rows} rows (upload to the last batch)`,
        value: Math.round(rows / (importMs / 1000)),
        unit: 'rows/s',
        detail: {
          seconds: Math.round(importMs / 100) / 10,
          upload_seconds: Math.round(uploadedMs / 100) / 10,
          megabytes: Math.round(bytes / 2 ** 20),
          created: Number(report.created),
          rejected: Number(report.rejected),
        },
      },
      {
        bench: 'contacts',
        figure: 'gateway peak RSS through the import (built)',
        value: rss.gateway,
        unit: 'MiB',
        baseline: { name: 'memory limit (k8s/base/gateway.yaml)', value: MEMORY_LIMIT_MIB },
        ratio: Math.round((rss.gateway / MEMORY_LIMIT_MIB) * 100) / 100,
      },
      {
        bench: 'contacts',
        figure: 'api peak RSS through the import (consent of 1 % of the rows; built)',
        value: rss.api,
        unit: 'MiB',
        baseline: { name: 'memory limit (k8s/base/api.yaml)', value: MEMORY_LIMIT_MIB },
        ratio: Math.round((rss.api / MEMORY_LIMIT_MIB) * 100) / 100,
      },
      {
        bench: 'contacts',
        figure: `accepted template sends/s with the consent check (${SEEDED_CONSENTS} consent records kept)`,
        value: on.perSecond,
        unit: 'sends/s',
        baseline: { name: 'the same api without the check (CONSENT_CHECK=off), same run', value: off.perSecond },
        ratio: Math.round((on.perSecond / Math.max(1, off.perSecond)) * 100) / 100,
        detail: {
          p50_ms: on.p50,
          p99_ms: on.p99,
          answers: on.statuses,
          off_p50_ms: off.p50,
          off_p99_ms: off.p99,
          off_answers: off.statuses,
          rounds,
        },
      },
    ];
    return figures;
  } finally {
    await Promise.all(children.map(stop));
    rmSync(csv, { force: true });
    await deleteTopology(await clients.jsm(), new Topology(prefix)).catch(() => undefined);
    await clients.drain();
    const drop = new Pool({ connectionString: opts.databaseUrl, max: 1 });
    await drop.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
    await drop.end();
  }
};
