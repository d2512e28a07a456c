import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { waitFor } from '@app/testing';
import { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { ApiFactory, TestUser } from '../support/factories';
import { Platform, startPlatform } from '../support/platform';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const ROOT = join(__dirname, '..', '..');
const ADAPTER = join(ROOT, 'test', 'adapter', 'channel-adapter.mjs');
const DOCUMENT = join(ROOT, 'docs', 'asyncapi.json');
const PRICE = 0.02; // UTILITY

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

  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${platform.urls.api}/api/v1${path}`, {
      method,
      headers: { authorization: user.auth, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };
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

    adapter = spawn(process.execPath, [ADAPTER], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        ASYNCAPI_PATH: DOCUMENT,
        ADAPTER_CHANNEL: 'whatsapp',
        NATS_URL: platform.env.NATS_URL,
        NATS_PREFIX: platform.env.NATS_PREFIX,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    createInterface({ input: adapter.stdout! }).on('line', (line) => lines.push(line));
    // What the adapter says went wrong is shown with the failure it caused.
    createInterface({ input: adapter.stderr! }).on('line', (line) => process.stderr.write(`adapter: ${line}\n`));
    await waitFor(async () => lines.includes('ready'), 20_000, 'the adapter bound to its consumers');
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
