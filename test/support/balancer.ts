import { Agent, createServer, request, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';

/** A round-robin HTTP balancer in front of a service's replicas, as the cluster's Service is. */
export interface Balancer {
  url: string;
  /** Requests each replica has been given so far, in the order of `targets`. */
  counts(): number[];
  /**
   * Takes target `i` out of the rotation (`ready` false: a replica stopping, as a pod that fails
   * readiness) or puts it back. With every target out, requests are answered 502.
   */
  setReady(i: number, ready: boolean): void;
  close(): Promise<void>;
}

/**
 * Listens on `port` (0: any free one) of loopback and hands each request to the next of `targets`
 * (base URLs) in turn, skipping those taken out of the rotation. Bodies stream both ways; headers pass as they came (Host included, so the
 * replicas see the address the client used) with the client's address in X-Forwarded-For. A replica
 * that does not answer gets the client a 502, never a hang.
 */
export async function startBalancer(targets: string[], port = 0): Promise<Balancer> {
  if (targets.length === 0) throw new Error('a balancer needs at least one target');
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const counts = targets.map(() => 0);
  const ready = targets.map(() => true);
  let next = 0;
  const pick = (): number | undefined => {
    for (let k = 0; k < targets.length; k++) {
      const i = (next + k) % targets.length;
      if (ready[i]) {
        next = (i + 1) % targets.length;
        return i;
      }
    }
    return undefined;
  };
  const refuse = (res: ServerResponse, detail: string) => {
    res.writeHead(502, { 'content-type': 'application/problem+json' });
    res.end(JSON.stringify({ type: 'about:blank', title: 'Bad Gateway', status: 502, detail }));
  };
  const server: Server = createServer((req, res) => {
    const i = pick();
    if (i === undefined) {
      req.resume();
      refuse(res, 'no replica is ready');
      return;
    }
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
      refuse(res, err.message);
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
    setReady(i, isReady) {
      ready[i] = isReady;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}
