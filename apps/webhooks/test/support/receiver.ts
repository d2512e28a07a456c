import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedRequest {
  path: string;
  headers: Record<string, string>;
  body: string;
  /** Date.now() when the body was complete. */
  at: number;
}

/** What a path answers; `n` counts the requests to that path, from 1. */
export type Behaviour = (req: ReceivedRequest, res: ServerResponse, n: number) => void;

export const answer =
  (status: number, body = '', headers: Record<string, string> = {}): Behaviour =>
  (_req, res) => {
    res.writeHead(status, headers);
    res.end(body);
  };

/** Accepts the request and never answers. */
export const hang: Behaviour = () => undefined;

/** A subscriber's endpoint on 127.0.0.1: records every request, answers as told per path. */
export class Receiver {
  readonly requests: ReceivedRequest[] = [];
  private readonly behaviours = new Map<string, Behaviour>();
  private readonly counts = new Map<string, number>();
  private readonly sockets = new Set<Socket>();
  private server?: Server;
  port = 0;

  async start(): Promise<this> {
    this.server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = (req.url ?? '/').split('?')[0];
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(',') : (v ?? '');
        const received = { path, headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
        this.requests.push(received);
        const n = (this.counts.get(path) ?? 0) + 1;
        this.counts.set(path, n);
        (this.behaviours.get(path) ?? answer(200, 'ok'))(received, res, n);
      });
    });
    this.server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
    return this;
  }

  on(path: string, behaviour: Behaviour): string {
    this.behaviours.set(path, behaviour);
    return this.url(path);
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  at(path: string): ReceivedRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}

/** Verifies a received request with the public standardwebhooks package; returns the parsed body. */
export function verify(secret: string, req: ReceivedRequest): unknown {
  return new Webhook(secret).verify(req.body, {
    'webhook-id': req.headers['webhook-id'],
    'webhook-timestamp': req.headers['webhook-timestamp'],
    'webhook-signature': req.headers['webhook-signature'],
  });
}

export function verifies(secret: string, req: ReceivedRequest): boolean {
  try {
    verify(secret, req);
    return true;
  } catch {
    return false;
  }
}
