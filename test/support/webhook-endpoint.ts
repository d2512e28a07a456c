import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { WebhookEvent } from '@messaging-platform/sdk';

/** The event envelope a subscriber receives. */
export type Delivered = WebhookEvent;

/** A subscriber's endpoint on 127.0.0.1 that can be closed and opened again on the same port. */
export class Endpoint {
  /** Every request that verified with the subscription's secret, parsed. */
  readonly events: Delivered[] = [];
  /** Requests that did not verify (must stay empty). */
  readonly rejected: string[] = [];
  /** Raw bodies, to check what subscribers see (and do not). */
  readonly bodies: string[] = [];
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  secret = '';

  constructor(public port = 0) {}

  async open(): Promise<this> {
    this.server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(',') : (v ?? '');
        try {
          // As the docs tell a subscriber to do: verify the raw body with the standardwebhooks package.
          this.events.push(new Webhook(this.secret).verify(body, headers) as Delivered);
          this.bodies.push(body);
          res.writeHead(204).end();
        } catch (err) {
          this.rejected.push(String(err));
          res.writeHead(400).end();
        }
      });
    });
    this.server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(this.port, '127.0.0.1', resolve);
    });
    this.port = (this.server.address() as { port: number }).port;
    return this;
  }

  url(path = '/hooks'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  of(messageId: string): Delivered[] {
    return this.events.filter((e) => e.data.message_id === messageId);
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = undefined;
  }
}
