import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { loadConfig } from '@app/config';
import { WebhooksConfig } from '../config';
import { webhookTargets } from './target-policy';
import { parseRetryAfter } from '@app/contracts';
import { WebhookSender } from './webhook-sender';
import { Clock } from '@app/server';

const SECRET_A = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const SECRET_B = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD';

describe('webhook sender', () => {
  let server: Server;
  let base: string;
  const sockets = new Set<Socket>();
  let handler: (req: IncomingMessage, body: string, res: ServerResponse) => void = (_q, _b, res) => res.end();
  const sender = new WebhookSender(
    webhookTargets(loadConfig(WebhooksConfig, { WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' })),
    500,
    new Clock(),
  );

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => handler(req, Buffer.concat(chunks).toString(), res));
    });
    server.on('connection', (s: Socket) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });

  afterAll(async () => {
    sender.close();
    for (const s of sockets) s.destroy();
    await new Promise((r) => server.close(r));
  });

  it('posts the exact payload with Standard Webhooks headers that verify with every given secret', async () => {
    let seen: { headers: IncomingMessage['headers']; body: string } | undefined;
    handler = (req, body, res) => {
      seen = { headers: req.headers, body };
      res.writeHead(200).end('ok');
    };
    const payload = '{"id":"evt_1","type":"message.read","data":{"text":"héllo"}}';
    const res = await sender.send({ url: `${base}/hook`, eventId: 'evt_1', payload, secrets: [SECRET_A, SECRET_B] });
    expect(res).toMatchObject({ status: 200, excerpt: 'ok', error: null });
    expect(seen!.body).toBe(payload);
    const headers = {
      'webhook-id': String(seen!.headers['webhook-id']),
      'webhook-timestamp': String(seen!.headers['webhook-timestamp']),
      'webhook-signature': String(seen!.headers['webhook-signature']),
    };
    expect(headers['webhook-id']).toBe('evt_1');
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(SECRET_A).verify(seen!.body, headers)).toMatchObject({ id: 'evt_1' });
    expect(new Webhook(SECRET_B).verify(seen!.body, headers)).toMatchObject({ id: 'evt_1' });
  });

  it('keeps only the first 1 KiB of the answer', async () => {
    handler = (_q, _b, res) => res.writeHead(500).end('x'.repeat(5000));
    const res = await sender.send({ url: `${base}/big`, eventId: 'evt_2', payload: '{}', secrets: [SECRET_A] });
    expect(res.status).toBe(500);
    expect(res.excerpt).toHaveLength(1024);
  });

  it('does not follow a redirect', async () => {
    let followed = false;
    handler = (req, _b, res) => {
      if (req.url === '/elsewhere') followed = true;
      res.writeHead(307, { location: `${base}/elsewhere` }).end();
    };
    const res = await sender.send({ url: `${base}/moved`, eventId: 'evt_3', payload: '{}', secrets: [SECRET_A] });
    expect(res.status).toBe(307);
    expect(res.error).toMatch(/redirect \(307 to .*\/elsewhere\) not followed/);
    expect(followed).toBe(false);
  });

  it('gives up on a subscriber that does not answer within the timeout', async () => {
    handler = () => undefined;
    const res = await sender.send({ url: `${base}/hang`, eventId: 'evt_4', payload: '{}', secrets: [SECRET_A] });
    expect(res).toMatchObject({ status: null, error: 'no answer within 500 ms' });
    expect(res.latencyMs).toBeGreaterThanOrEqual(450);
    expect(res.latencyMs).toBeLessThan(1500);
  });

  it('reports a refused connection', async () => {
    const res = await sender.send({
      url: 'http://127.0.0.1:1/x',
      eventId: 'evt_5',
      payload: '{}',
      secrets: [SECRET_A],
    });
    expect(res).toMatchObject({ status: null, error: 'connection refused' });
  });

  it('reads Retry-After on 429 and 503 as seconds or an HTTP date', async () => {
    handler = (_q, _b, res) => res.writeHead(429, { 'retry-after': '7' }).end();
    const res = await sender.send({ url: `${base}/busy`, eventId: 'evt_6', payload: '{}', secrets: [SECRET_A] });
    expect(res.retryAfterMs).toBe(7000);
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:01:00 GMT', now)).toBe(60_000);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});
