import { Agent, createServer, request, Server } from 'node:http';
import { AddressInfo } from 'node:net';

/** A round-robin HTTP balancer in front of a service's replicas, as the cluster's Service is. */
export interface Balancer {
  url: string;
  /** Requests each replica has been given so far, in the order of `targets`. */
  counts(): number[];
  close(): Promise<void>;
}

/**
 * Listens on `port` (0: any free one) of loopback and hands each request to the next of `targets`
 * (base URLs) in turn. Bodies stream both ways; headers pass as they came (Host included, so the
 * replicas see the address the client used) with the client's address in X-Forwarded-For. A replica
 * that does not answer gets the client a 502, never a hang.
 */
export async function startBalancer(targets: string[], port = 0): Promise<Balancer> {
  if (targets.length === 0) throw new Error('a balancer needs at least one target');
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const counts = targets.map(() => 0);
  let next = 0;
  const server: Server = createServer((req, res) => {
    const i = next;
    next = (next + 1) % targets.length;
    counts[i]++;
    const target = new URL(targets[i]);
    const forwarded = [req.headers['x-forwarded-for'], req.socket.remoteAddress].filter(Boolean).join(', ');
    const upstream = request(
      {
        agent,
        hostname: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, 'x-forwarded-for': forwarded },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.rawHeaders);
        answer.pipe(res);
      },
    );
    upstream.on('error', (err) => {
      if (res.headersSent) {
        res.destroy(err);
        return;
      }
      res.writeHead(502, { 'content-type': 'application/problem+json' });
      res.end(JSON.stringify({ type: 'about:blank', title: 'Bad Gateway', status: 502, detail: err.message }));
    });
    req.on('aborted', () => upstream.destroy());
    req.pipe(upstream);
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}`,
    counts: () => [...counts],
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}
