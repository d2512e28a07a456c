import { ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { messageStatusEventId, OutboundMessage, Topology } from '@app/contracts';
import {
  DEFAULT_TOPOLOGY_OPTIONS,
  NatsClients,
  natsServerEnv,
  randomNatsPasswords,
  setupTopology,
} from '@app/messaging';
import { killHard, readEvents, waitFor } from '@app/testing';
import { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { apiClient } from '../support/api-client';
import { ApiFactory, TestUser } from '../support/factories';
import { freePort, Platform, startPlatform } from '../support/platform';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const ROOT = join(__dirname, '..', '..');
const ADAPTER = join(ROOT, 'test', 'adapter', 'channel-adapter.mjs');
const DOCUMENT = join(ROOT, 'docs', 'asyncapi.json');
const PRICE = 0.02; // UTILITY

/**
 * The adapter as a process of its own serving WhatsApp; its stdout lines (its reports) are pushed
 * to `lines`. Resolves once it is bound to its consumers.
 */
async function startAdapter(nats: Record<string, string>, lines: string[]): Promise<ChildProcess> {
  const child = spawn(process.execPath, [ADAPTER], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, ASYNCAPI_PATH: DOCUMENT, ADAPTER_CHANNEL: 'whatsapp', ...nats },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  createInterface({ input: child.stdout! }).on('line', (line) => lines.push(line));
  // What the adapter says went wrong is shown with the failure it caused.
  createInterface({ input: child.stderr! }).on('line', (line) => process.stderr.write(`adapter: ${line}\n`));
  await waitFor(async () => lines.includes('ready') || child.exitCode !== null, 20_000, 'the adapter');
  if (!lines.includes('ready')) throw new Error(`the adapter exited (${child.exitCode}) before binding`);
  return child;
}

/**
 * A channel adapter in a process of its own, built only from the AsyncAPI document and the NATS
 * clients, serves WhatsApp while the queue runs every other channel (`CHANNELS=telegram,max`):
 * sends accepted by the real api reach the adapter through the outbound stream, and its reports
 * move each message to its final status in the api, with the money settled (docs/adapters.md).
 */
describe('a channel adapter built from the AsyncAPI document', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let user: TestUser;
  let appId: number;
  let adapter: ChildProcess;
  const lines: string[] = [];

  const api = apiClient(
    () => platform.urls.api,
    () => user.auth,
  );
  const send = async (phone: string) => {
    const res = await api('POST', `/wa/apps/${appId}/messages`, {
      phone,
      type: 'TEMPLATE',
      template: { name: 'adapter_note', components: { body: { values: [phone] } } },
    });
    expect(res.status).toBe(201);
    return res.body.message.id as string;
  };

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'channel-adapter',
      services: ['api', 'queue'],
      // The queue serves no WhatsApp: the adapter does.
      env: { CHANNELS: 'telegram,max' },
    });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    user = await factory.user('system', { balance: 1 });
    const app = await factory.activeApp(user.userId, { message_limit: 'TIER_250' });
    appId = app.id;
    await factory.sendableTemplate(app.id, { name: 'adapter_note', category: 'UTILITY', body: 'Note {{1}}' });

    adapter = await startAdapter({ NATS_URL: platform.env.NATS_URL, NATS_PREFIX: platform.env.NATS_PREFIX }, lines);
  });

  afterAll(async () => {
    adapter?.kill('SIGTERM');
    await factory?.close();
    await platform?.stop();
  });

  it('delivers through the adapter and settles each message on its reports', async () => {
    const delivered = await send('79990001122');
    const refused = await send('79990001000');

    const final = await waitFor(
      async () => {
        const [d, r] = await Promise.all([
          api('GET', `/wa/apps/${appId}/messages/${delivered}`),
          api('GET', `/wa/apps/${appId}/messages/${refused}`),
        ]);
        return d.body.status === 'DELIVERED' && r.body.status === 'FAILED' ? { d: d.body, r: r.body } : false;
      },
      30_000,
      'both messages settled by the adapter',
      200,
    );
    expect(final.d.timeline.map((s: Json) => s.status)).toEqual(['QUEUED', 'SENT', 'DELIVERED']);
    expect(final.r.failure).toEqual({ code: 'recipient_refused', reason: 'the provider refused the recipient' });
    // Each report came from the adapter, once.
    const reports = lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Json);
    expect(reports.filter((r) => r.report).map((r) => [r.report, r.message_id])).toEqual(
      expect.arrayContaining([
        ['message.sent', delivered],
        ['message.delivered', delivered],
        ['message.failed', refused],
      ]),
    );
    expect(reports.filter((r) => r.report)).toHaveLength(3);
    // The delivered message is charged, the refused one released.
    const balance = await api('GET', `/users/${user.userId}/balances`);
    expect(balance.body.balance).toBeCloseTo(1 - PRICE, 4);
  });

  it('dead-letters a work item that does not fit the schema, without its content', async () => {
    const nc: NatsConnection = await connect({ servers: platform.env.NATS_URL });
    try {
      const subject = (s: string) => `${platform.env.NATS_PREFIX}.${s}`;
      const ack = await jetstream(nc).publish(subject('outbound.service.whatsapp'), JSON.stringify({ text: 'secret' }));
      const record = await waitFor(
        async () => {
          const jsm = await jetstreamManager(nc);
          const stream = `${platform.env.NATS_PREFIX.toUpperCase()}_DEAD_LETTER`;
          const msg = await jsm.streams
            .getMessage(stream, { last_by_subj: subject(`dlq.${ack.stream}.service_whatsapp`) })
            .catch(() => null);
          return msg ?? false;
        },
        20_000,
        'the dead letter',
        200,
      );
      expect(record.header?.get('Dlq-Stream-Seq')).toBe(String(ack.seq));
      const body = record.json<Json>();
      expect(body).toMatchObject({ message_id: null, attempts: 1 });
      expect(JSON.stringify(body)).not.toContain('secret');
      // The work item is erased from its stream with its content.
      const jsm = await jetstreamManager(nc);
      expect(await jsm.streams.getMessage(ack.stream, { seq: ack.seq }).catch(() => null)).toBeNull();
    } finally {
      await nc.close();
    }
  });
});

const NATS_SERVER = '/usr/sbin/nats-server';

/**
 * The same adapter connected as `queue_whatsapp` to a nats-server configured with what
 * `pnpm nats:auth --conf` prints: the channel's queue user has every right the adapter needs to
 * take work, report, dead-letter and erase.
 */
(existsSync(NATS_SERVER) ? describe : describe.skip)('a channel adapter under the generated NATS users', () => {
  const prefix = 'adapterauth';
  const topology = new Topology(prefix);
  const passwords = randomNatsPasswords();
  const lines: string[] = [];
  let dir: string;
  let server: ChildProcess;
  let adapter: ChildProcess | undefined;
  let url: string;
  let setup: NatsClients;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'adapter-authz-'));
    const conf = join(dir, 'auth.conf');
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['-r', './scripts/register.js', 'scripts/nats-auth.ts', '--conf'],
      { cwd: ROOT, env: { ...process.env, NATS_PREFIX: prefix } },
    );
    writeFileSync(conf, stdout);
    const port = await freePort();
    server = spawn(NATS_SERVER, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir, '-c', conf], {
      env: { ...process.env, ...natsServerEnv(passwords) },
      stdio: 'ignore',
    });
    url = `nats://127.0.0.1:${port}`;
    const auth = { user: 'setup', pass: passwords.setup };
    setup = await waitFor(
      () => NatsClients.connect({ url, name: 'setup', auth, prefix }).catch(() => false as const),
      30_000,
      'nats-server with authorization',
    );
    await setupTopology(await setup.jsm(), topology, { ...DEFAULT_TOPOLOGY_OPTIONS, storage: 'memory' });
    adapter = await startAdapter(
      { NATS_URL: url, NATS_PREFIX: prefix, NATS_USER: 'queue_whatsapp', NATS_PASSWORD: passwords.queue_whatsapp },
      lines,
    );
  });

  afterAll(async () => {
    if (adapter) await killHard(adapter);
    await setup?.drain();
    if (server) await killHard(server);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('takes work published by the api user, reports it and dead-letters what it cannot read', async () => {
    const api = await NatsClients.connect({ url, name: 'api', auth: { user: 'api', pass: passwords.api }, prefix });
    try {
      const item: OutboundMessage = {
        id: '0192f0c4-a0f8-7cc3-a1f0-e4d2b3c4d5e6',
        channel: 'whatsapp',
        priority: 'marketing',
        category: 'MARKETING',
        user_id: '0192f0c4-a0f8-7cc3-a1f0-e4d2b3c4d5e7',
        app_id: 7,
        sender: { connection_id: '100200300', waba_id: '400500600' },
        recipient: '79990001122',
        kind: 'TEXT',
        content: { text: { body: 'hello' } },
        queued_at: Date.now(),
      };
      await api.js.publish(topology.outboundSubject('marketing', 'whatsapp'), JSON.stringify(item), { msgID: item.id });
      const bad = await api.js.publish(topology.outboundSubject('service', 'whatsapp'), 'not json');

      const events = await waitFor(
        async () => {
          const all = await readEvents(setup, topology);
          return all.length >= 2 ? all : false;
        },
        20_000,
        'the reports on EVENTS',
      );
      expect(events.map((e) => [e.type, e.id, (e.data as Json).message_id])).toEqual([
        ['message.sent', messageStatusEventId(item.id, 'SENT'), item.id],
        ['message.delivered', messageStatusEventId(item.id, 'DELIVERED'), item.id],
      ]);
      const jsm = await setup.jsm();
      const dead = await waitFor(
        () =>
          jsm.streams
            .getMessage(topology.stream('deadLetter'), {
              last_by_subj: topology.deadLetterSubject(bad.stream, topology.outboundConsumer('service', 'whatsapp')),
            })
            .then((m) => m ?? false)
            .catch(() => false as const),
        20_000,
        'the dead letter',
      );
      expect(dead.header?.get('Dlq-Stream-Seq')).toBe(String(bad.seq));
      // Nothing is left in hand or waiting, and the unreadable item is gone from its stream.
      for (const lane of ['service', 'marketing'] as const) {
        const info = await jsm.consumers.info(
          topology.outboundStream(lane),
          topology.outboundConsumer(lane, 'whatsapp'),
        );
        expect([info.num_pending, info.num_ack_pending]).toEqual([0, 0]);
      }
      expect((await jsm.streams.info(topology.stream('outboundService'))).state.messages).toBe(0);
    } finally {
      await api.drain();
    }
  });
});
