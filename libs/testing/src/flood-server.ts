import { createServer, OutgoingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FloodServer {
  /** http://127.0.0.1:<port> */
  url: string;
  /** Bytes of body the server managed to write before the client stopped reading or it finished. */
  sent(): number;
  /** Resolves once the answer in progress ended (finished or cut off by the client). */
  ended(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A listener that answers every request with `totalBytes` of body, written as fast as the client
 * reads it (backpressure respected), so a test can tell how much a reader took before it stopped.
 * `declareLength` sends a Content-Length; otherwise the body is chunked.
 */
export async function startFloodServer(
  totalBytes: number,
  opts: { declareLength?: boolean; status?: number } = {},
): Promise<FloodServer> {
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  let sent = 0;
  let done: () => void = () => undefined;
  let ended = new Promise<void>((r) => (done = r));
  const server: Server = createServer((req, res) => {
    req.resume();
    sent = 0;
    ended = new Promise<void>((r) => (done = r));
    const headers: OutgoingHttpHeaders = { 'content-type': 'application/octet-stream' };
    if (opts.declareLength) headers['content-length'] = totalBytes;
    res.writeHead(opts.status ?? 200, headers);
    res.on('close', () => done());
    const pump = () => {
      while (sent < totalBytes && !res.destroyed) {
        const part = chunk.subarray(0, Math.min(chunk.length, totalBytes - sent));
        sent += part.length;
        if (!res.write(part)) return void res.once('drain', pump);
      }
      if (!res.destroyed) res.end();
    };
    pump();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sent: () => sent,
    ended: () => ended,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
