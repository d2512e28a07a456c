import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { DeadLetteredOutbound, MessageStatusData } from '@app/contracts';
import { NatsClients } from '@app/messaging';
import { eventsOf, readStream, waitFor } from '@app/testing';
import { AppEntity } from '../../apps/api/src/wa-apps/app.entity';
import { ApiFactory, TestUser } from '../support/factories';
import { Platform, startPlatform } from '../support/platform';
import { registerSandboxNumber } from '../support/sandbox';
import { Endpoint } from '../support/webhook-endpoint';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const MESSAGES = 200;
/** Every fourth message goes through a sender the channel keeps refusing: it is dead-lettered. */
const DEAD_EVERY = 4;
const MAX_DELIVER = 3;
const BALANCE = 50;
const UTILITY_PRICE = 0.02; // the default MESSAGE_PRICES; free-form sends (SERVICE) are free

/** What one send was, and the unique marker the business wrote into it. */
interface Sent {
  id: string;
  marker: string;
  kind: 'TEXT' | 'IMAGE' | 'DOCUMENT' | 'TEMPLATE';
  dead: boolean;
}

/** Tables (schema.table) of the suite's database with a row whose text contains `needle`. */
async function tablesContaining(ds: DataSource, needle: string): Promise<string[]> {
  const tables = (await ds.query(
    `SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
     WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`,
  )) as { schema: string; name: string }[];
  const found: string[] = [];
  for (const { schema, name } of tables) {
    const table = `"${schema.replace(/"/g, '""')}"."${name.replace(/"/g, '""')}"`;
    const [row] = (await ds.query(`SELECT count(*)::int AS n FROM ${table} t WHERE t::text LIKE $1`, [
      `%${needle}%`,
    ])) as { n: number }[];
    if (row.n > 0) found.push(`${schema}.${name}`);
  }
  return found;
}

/**
 * Message content lives only as long as delivery needs it. 200 sends (text, image, document and
 * template), each carrying a unique marker in everything the business wrote (text, captions,
 * media URLs, template values), a quarter of them through a sender the channel keeps refusing
 * until they are dead-lettered. Once every message is final, no table of any service's database
 * and no message of any stream but EVENTS holds a marker; the dead-lettered ones are FAILED
 * `dead_lettered` with message.failed published and their holds released to the cent.
 */
describe('message content retention', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let clients: NatsClients;
  let user: TestUser;
  let healthy: AppEntity;
  let refused: AppEntity;
  let endpoint: Endpoint;
  const run = `cz${randomBytes(5).toString('hex')}`;
  /** The start of every marker put in a message; nothing else contains it. */
  const mark = `${run}m`;
  const template = 'order_note';
  const templateBody = `Your order {{1}} is ready (${run}tpl)`;
  const sent: Sent[] = [];

  const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${platform.urls.api}/api/v1${path}`, {
      method,
      headers: {
        authorization: user.auth,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as Json };
  };

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'e2e-content',
      services: ['api', 'gateway', 'queue', 'webhooks', 'sandbox'],
      topology: { outboundMaxDeliver: MAX_DELIVER },
      env: {
        SANDBOX_STATUS_DELAY_MS: '20',
        QUEUE_WHATSAPP_RATE_PER_SENDER: '1000',
        QUEUE_WHATSAPP_RECIPIENT_INTERVAL_MS: '0',
        QUEUE_BACKOFF_BASE_MS: '100',
        QUEUE_BACKOFF_MAX_MS: '500',
        WEBHOOK_POLL_INTERVAL_MS: '100',
      },
    });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    clients = await NatsClients.connect({ url: platform.infra.natsUrl, name: 'content-retention-test' });
    user = await factory.user('system', { balance: BALANCE });
    healthy = await factory.activeApp(user.userId, { message_limit: 'TIER_10K' });
    refused = await factory.activeApp(user.userId, { message_limit: 'TIER_10K' });
    for (const app of [healthy, refused]) {
      await registerSandboxNumber(platform.urls.sandbox, app);
      await factory.sendableTemplate(app.id, { name: template, category: 'UTILITY', body: templateBody });
    }
    // Every send of the refused app's number is answered 429 until cleared: retried, then dead-lettered.
    const fault = await fetch(`${platform.urls.sandbox}/_sandbox/whatsapp/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ mode: '429', retry_after_seconds: 1, phone_number_id: refused.phoneNumberId }),
    });
    expect(fault.status).toBeLessThan(300);
    endpoint = await new Endpoint().open();
    const sub = await api('POST', '/subscriptions', { url: endpoint.url(), events: '*' });
    expect(sub.status).toBe(201);
    endpoint.secret = sub.body.secret;
  }, 120_000);

  afterAll(async () => {
    await endpoint?.close();
    await clients?.drain();
    await factory?.close();
    await platform?.stop();
  });

  it('keeps no content anywhere once every message is final; dead letters end FAILED with their holds released', async () => {
    const kinds: Sent['kind'][] = ['TEXT', 'IMAGE', 'DOCUMENT', 'TEMPLATE'];
    for (let i = 0; i < MESSAGES; i++) {
      const marker = `${mark}${String(i).padStart(3, '0')}`;
      const kind = kinds[Math.floor(i / DEAD_EVERY) % kinds.length];
      const dead = i % DEAD_EVERY === 0;
      const app = dead ? refused : healthy;
      const phone = `7998${String(i).padStart(5, '0')}7`; // no sandbox rule: sent, delivered, read
      if (kind !== 'TEMPLATE') await factory.openConversation(app.id, phone);
      const body =
        kind === 'TEXT'
          ? { text: { body: `Hello, your code is ${marker}` } }
          : kind === 'IMAGE'
            ? { image: { url: `https://cdn.example.com/${marker}.jpg`, caption: `Photo ${marker}` } }
            : kind === 'DOCUMENT'
              ? { document: { url: `https://cdn.example.com/docs/${marker}.pdf`, caption: `Invoice ${marker}` } }
              : { template: { name: template, components: { body: { values: [marker] } } } };
      // Half of them with an Idempotency-Key: its stored answer is a row too.
      const key: Record<string, string> =
        i % 2 ? { 'idempotency-key': `key-${i}-${randomBytes(4).toString('hex')}` } : {};
      const res = await api('POST', `/wa/apps/${app.id}/messages`, { phone, type: kind, ...body }, key);
      expect(res.status).toBe(201);
      sent.push({ id: res.body.message.id, marker, kind, dead });
    }
    const dead = sent.filter((s) => s.dead);
    const alive = sent.filter((s) => !s.dead);
    expect(new Set(dead.map((s) => s.kind))).toEqual(new Set(kinds));

    // Every message final: READ when the channel took it, FAILED when it was dead-lettered.
    await waitFor(
      async () => {
        const rows = (await factory.dataSource.query(
          `SELECT status, count(*)::int AS n FROM messages WHERE user_id = $1 GROUP BY status`,
          [user.userId],
        )) as { status: string; n: number }[];
        const n = (s: string) => rows.find((r) => r.status === s)?.n ?? 0;
        return n('READ') === alive.length && n('FAILED') === dead.length;
      },
      180_000,
      'every message READ or FAILED',
      500,
    );

    // The dead-lettered ones, as their sender sees them.
    for (const s of dead) {
      const view = await api('GET', `/wa/apps/${refused.id}/messages/${s.id}`);
      expect(view.body).toMatchObject({ status: 'FAILED', failure: { code: 'dead_lettered' } });
    }
    const failed = await eventsOf<MessageStatusData>(clients, platform.infra.topology, 'message.failed');
    expect(new Set(failed.map((e) => e.data.message_id))).toEqual(new Set(dead.map((s) => s.id)));
    for (const e of failed) expect(e.data.error).toMatchObject({ code: 'dead_lettered', retryable: false });

    // Holds: every dead-lettered one released, every delivered one captured; the balance exact.
    const holds = (await factory.dataSource.query(
      `SELECT status, count(*)::int AS n FROM holds WHERE user_id = $1 GROUP BY status ORDER BY status`,
      [user.userId],
    )) as { status: string; n: number }[];
    expect(holds).toEqual([
      { status: 'CAPTURED', n: alive.length },
      { status: 'RELEASED', n: dead.length },
    ]);
    const charged = alive.filter((s) => s.kind === 'TEMPLATE').length * UTILITY_PRICE;
    const balance = await api('GET', `/users/${user.userId}/balances`);
    expect(balance.body.balance).toBeCloseTo(BALANCE - charged, 4);
    const [money] = (await factory.dataSource.query(`SELECT held::float AS held FROM balances WHERE user_id = $1`, [
      user.userId,
    ])) as { held: number }[];
    expect(money.held).toBe(0);

    // Subscribers were told every outcome (their deliveries are rows of the webhooks service).
    await waitFor(
      () => dead.every((s) => endpoint.of(s.id).some((e) => e.type === 'message.failed')),
      30_000,
      'message.failed of every dead letter at the subscriber',
      200,
    );

    // No table of any schema keeps any marker; the scan does find what is meant to be kept.
    const ds = factory.dataSource;
    expect(await tablesContaining(ds, `${run}tpl`)).toEqual(['api.templates']);
    expect(await tablesContaining(ds, mark)).toEqual([]);

    // No stream of the suite but EVENTS holds a marker; the dead letters keep their metadata.
    const prefix = platform.infra.topology.prefix.toUpperCase();
    const jsm = await clients.jsm();
    const streams: string[] = [];
    for await (const info of jsm.streams.list()) {
      const name = info.config.name;
      if (name.startsWith(`${prefix}_`) || name.startsWith(`KV_${prefix}_`)) streams.push(name);
    }
    const events = platform.infra.topology.stream('events');
    expect(streams).toEqual(expect.arrayContaining([events, platform.infra.topology.stream('deadLetter')]));
    for (const stream of streams.filter((s) => s !== events)) {
      for (const m of await readStream(clients, stream)) {
        const headers = [...(m.header ?? [])].map(([k, v]) => `${k}:${v.join(',')}`).join('\n');
        expect({ stream, seq: m.seq, text: `${headers}\n${m.string()}`.includes(mark) }).toEqual({
          stream,
          seq: m.seq,
          text: false,
        });
      }
    }
    const letters = (await readStream(clients, platform.infra.topology.stream('deadLetter'))).map((m) =>
      m.json<DeadLetteredOutbound>(),
    );
    expect(new Set(letters.map((l) => l.message_id))).toEqual(new Set(dead.map((s) => s.id)));
    for (const l of letters) {
      expect(l).toMatchObject({ channel: 'whatsapp', app_id: refused.id, attempts: MAX_DELIVER });
      expect(l.reason).toContain('130429');
    }
    for (const lane of ['service', 'marketing'] as const) {
      expect((await jsm.streams.info(platform.infra.topology.outboundStream(lane))).state.messages).toBe(0);
    }
  }, 300_000);
});
