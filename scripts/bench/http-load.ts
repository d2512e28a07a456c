// A closed-loop HTTP load: a fixed number of keep-alive connections, each sending its next request
// as soon as the previous one is answered, for a set time; the answers it counts and their latencies.
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { percentile } from './report';

export interface LoadResult {
  seconds: number;
  /** Milliseconds of each counted answer. */
  latencies: number[];
  /** Answers with the expected status. */
  accepted: number;
  refused: number;
  perSecond: number;
  p50: number;
  p99: number;
  /** Every status seen, `status:count`. */
  statuses: string;
}

export interface LoadRequest {
  method: string;
  path: string;
  headers?: Record<string, string | number>;
  body?: string;
}

/**
 * Requests over up to `connections` keep-alive connections to `base`, with `node:http` (a load
 * generator on the measured machine must cost it little: `fetch` costs several times more per
 * request). `send` resolves with the status, and the body's text when `keepBody`.
 */
export function keepAliveClient(base: string, connections: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const target = new URL(base);
  const send = (r: LoadRequest, keepBody = false) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        { agent, host: target.hostname, port: target.port, path: r.path, method: r.method, headers: r.headers },
        (res) => {
          let body = '';
          if (keepBody) res.on('data', (d: Buffer) => (body += d.toString()));
          else res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.end(r.body);
    });
  return { send, close: () => agent.destroy() };
}

/** `connections` keep-alive connections to `base`, each sending `next(i)` one after another for `seconds`. */
export async function httpLoad(
  base: string,
  opts: { connections: number; seconds: number; expect: number; next: (i: number) => LoadRequest },
): Promise<LoadResult> {
  const client = keepAliveClient(base, opts.connections);
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  let n = 0;
  const send = (r: LoadRequest) => client.send(r).then((res) => res.status);
  // Warm up the connections and the server's caches before measuring.
  await Promise.all(Array.from({ length: opts.connections }, () => send(opts.next(n++)).catch(() => 0)));
  const start = performance.now();
  const end = start + opts.seconds * 1000;
  await Promise.all(
    Array.from({ length: opts.connections }, async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        const status = await send(opts.next(n++)).catch(() => 0);
        const t1 = performance.now();
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        if (status === opts.expect) latencies.push(t1 - t0);
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  client.close();
  const accepted = statuses.get(opts.expect) ?? 0;
  return {
    seconds: elapsed,
    latencies,
    accepted,
    refused: [...statuses.entries()].filter(([s]) => s !== opts.expect).reduce((a, [, c]) => a + c, 0),
    perSecond: Math.round(accepted / elapsed),
    p50: Math.round(percentile(latencies, 50) * 100) / 100,
    p99: Math.round(percentile(latencies, 99) * 100) / 100,
    statuses: [...statuses.entries()].map(([s, c]) => `${s}:${c}`).join(' '),
  };
}

/** The slices of one case taken together (cases measured in turns on a shared machine). */
export function totalLoad(slices: LoadResult[]): LoadResult {
  const seconds = slices.reduce((a, r) => a + r.seconds, 0);
  const all = slices.flatMap((r) => r.latencies);
  const statuses = new Map<string, number>();
  for (const r of slices) {
    for (const part of r.statuses.split(' ').filter(Boolean)) {
      const [status, count] = part.split(':');
      statuses.set(status, (statuses.get(status) ?? 0) + Number(count));
    }
  }
  const accepted = slices.reduce((a, r) => a + r.accepted, 0);
  return {
    accepted,
    refused: slices.reduce((a, r) => a + r.refused, 0),
    perSecond: Math.round(accepted / seconds),
    p50: Math.round(percentile(all, 50) * 100) / 100,
    p99: Math.round(percentile(all, 99) * 100) / 100,
    seconds,
    latencies: [],
    statuses: [...statuses.entries()].map(([st, c]) => `${st}:${c}`).join(' '),
  };
}
