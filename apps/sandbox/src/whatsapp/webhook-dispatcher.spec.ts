import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hubSignature, MessagesChangeValue, WebhookStatus, WhatsAppWebhookPayload } from '@app/channels';
import { SandboxConfig } from '../config';
import { SandboxClock } from './sandbox-clock';
import { STATUS_WEBHOOKS_IN_FLIGHT, WebhookSource, WebhookDispatcher } from './webhook-dispatcher';

const SECRET = 'dispatcher-spec-secret';

const source = (waba: string, number: string): WebhookSource => ({
  waba_id: waba,
  metadata: { display_phone_number: `1555${number}`, phone_number_id: number },
});
const status = (id: string): WebhookStatus => ({
  id,
  status: 'sent',
  timestamp: '1763700000',
  recipient_id: '79990001122',
});
const statusesOf = (payload: WhatsAppWebhookPayload): string[] =>
  payload.entry.flatMap((e) => e.changes.flatMap((c) => (c.value as MessagesChangeValue).statuses!.map((s) => s.id)));

describe('WebhookDispatcher: status webhooks', () => {
  let server: Server;
  let received: { payload: WhatsAppWebhookPayload; signed: boolean }[];
  /** Answers held back while a test wants the status webhooks to stay in flight. */
  let held: ServerResponse[];
  let hold: boolean;
  let clock: SandboxClock;
  let dispatcher: WebhookDispatcher;

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString();
        received.push({
          payload: JSON.parse(raw) as WhatsAppWebhookPayload,
          signed: req.headers['x-hub-signature-256'] === hubSignature(SECRET, raw),
        });
        if (hold) held.push(res);
        else res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  });

  beforeEach(() => {
    received = [];
    held = [];
    hold = false;
    clock = new SandboxClock();
    const config = Object.assign(new SandboxConfig(), {
      GATEWAY_PUBLIC_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      WHATSAPP_APP_SECRET: SECRET,
      SANDBOX_WEBHOOK_RETRY_FIRST_DELAY_MS: 20,
    });
    dispatcher = new WebhookDispatcher(config, clock);
  });

  afterEach(() => clock.onModuleDestroy());

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const until = async (check: () => boolean) => {
    for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
    expect(check()).toBe(true);
  };

  it('sends a status alone while the receiver keeps up', async () => {
    const first = await dispatcher.deliverStatus(source('2000001', '1000001'), status('a'));
    const second = await dispatcher.deliverStatus(source('2000001', '1000001'), status('b'));
    expect(received.map((r) => statusesOf(r.payload))).toEqual([['a'], ['b']]);
    expect(received.every((r) => r.signed)).toBe(true);
    expect(first).toMatchObject({ delivered: true, status: 200, attempts: 1 });
    expect(second.seq).toBe(first.seq + 1);
  });

  it('gathers the statuses that wait for a busy receiver into one signed webhook, by business account and number', async () => {
    hold = true;
    const alone = Array.from({ length: STATUS_WEBHOOKS_IN_FLIGHT }, (_, i) =>
      dispatcher.deliverStatus(source('2000001', '1000001'), status(`alone-${i}`)),
    );
    await until(() => held.length === STATUS_WEBHOOKS_IN_FLIGHT);
    // Every slot is taken: these wait, from two accounts and three numbers.
    const waiting = [
      dispatcher.deliverStatus(source('2000001', '1000001'), status('w1')),
      dispatcher.deliverStatus(source('2000002', '1000002'), status('w2')),
      dispatcher.deliverStatus(source('2000001', '1000003'), status('w3')),
      dispatcher.deliverStatus(source('2000001', '1000001'), status('w4')),
    ];
    await new Promise((r) => setTimeout(r, 50));
    expect(received).toHaveLength(STATUS_WEBHOOKS_IN_FLIGHT);

    hold = false;
    held.shift()!.writeHead(200).end();
    const carried = await Promise.all(waiting);
    expect(received).toHaveLength(STATUS_WEBHOOKS_IN_FLIGHT + 1);
    const batch = received[STATUS_WEBHOOKS_IN_FLIGHT];
    expect(batch.signed).toBe(true);
    expect(batch.payload.object).toBe('whatsapp_business_account');
    expect(
      batch.payload.entry.map((e) => ({
        id: e.id,
        changes: e.changes.map((c) => ({
          field: c.field,
          number: (c.value as MessagesChangeValue).metadata.phone_number_id,
          statuses: (c.value as MessagesChangeValue).statuses!.map((s) => s.id),
        })),
      })),
    ).toEqual([
      {
        id: '2000001',
        changes: [
          { field: 'messages', number: '1000001', statuses: ['w1', 'w4'] },
          { field: 'messages', number: '1000003', statuses: ['w3'] },
        ],
      },
      { id: '2000002', changes: [{ field: 'messages', number: '1000002', statuses: ['w2'] }] },
    ]);
    // Each waiting status learns about the one webhook that carried it.
    expect(new Set(carried.map((d) => d.seq)).size).toBe(1);
    expect(carried[0]).toMatchObject({ delivered: true, field: 'messages' });

    for (const res of held.splice(0)) res.writeHead(200).end();
    expect((await Promise.all(alone)).every((d) => d.delivered)).toBe(true);
    expect(dispatcher.deliveries()).toHaveLength(STATUS_WEBHOOKS_IN_FLIGHT + 1);
  });

  it('retries a refused webhook with every status it carries; each resolves once it is taken', async () => {
    let refuse = 2;
    const refusing = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(refuse-- > 0 ? 503 : 200).end());
    });
    await new Promise<void>((r) => refusing.listen(0, '127.0.0.1', r));
    try {
      const config = Object.assign(new SandboxConfig(), {
        GATEWAY_PUBLIC_URL: `http://127.0.0.1:${(refusing.address() as AddressInfo).port}`,
        WHATSAPP_APP_SECRET: SECRET,
        SANDBOX_WEBHOOK_RETRY_FIRST_DELAY_MS: 20,
      });
      const delivery = await new WebhookDispatcher(config, clock).deliverStatus(
        source('2000001', '1000001'),
        status('retried'),
      );
      expect(delivery).toMatchObject({ delivered: true, status: 200, attempts: 3 });
    } finally {
      refusing.closeAllConnections();
      await new Promise((r) => refusing.close(r));
    }
  });
});
