import { createServer, Socket } from 'node:net';

/** A TCP proxy in front of a NATS server, on loopback, that can lose the answers to publishes. */
export interface NatsProxy {
  /** `nats://127.0.0.1:<port>`: give it to the clients instead of the server's URL. */
  url: string;
  /**
   * From now on, a connection that publishes to a subject starting with `prefix` is cut right after
   * that publish was handed to the server: the server has it (a stream stores it), and its answer
   * (JetStream's ack) never reaches the client. The client reconnects through the proxy; every
   * such publish is cut again until `passThrough`.
   */
  cutAfterPublishTo(prefix: string): void;
  /** Forwards everything again. */
  passThrough(): void;
  /** Publishes cut so far. */
  readonly cuts: number;
  close(): Promise<void>;
}

/** At most this much of a client's unfinished last line is kept, to find a publish split across two chunks. */
const TAIL = 512;

/**
 * Starts a proxy on 127.0.0.1 in front of `target` (`nats://host:port`). It forwards bytes as they
 * come; in cutting mode it looks for `PUB`/`HPUB` to the prefix in what a client writes, forwards
 * that chunk, half-closes the server side once it is flushed and drops the client at once, so no
 * byte the server answers afterwards reaches the client.
 */
export async function startNatsProxy(target: string): Promise<NatsProxy> {
  const upstream = new URL(target.replace(/^nats:/, 'http:'));
  const host = upstream.hostname;
  const port = Number(upstream.port || 4222);
  let cutPattern: RegExp | null = null;
  let cuts = 0;
  const sockets = new Set<Socket>();

  const server = createServer((client) => {
    const broker = new Socket();
    sockets.add(client).add(broker);
    let tail = '';
    let cut = false;
    const drop = () => {
      client.destroy();
      broker.destroy();
    };
    client.on('close', () => {
      sockets.delete(client);
      if (!cut) broker.destroy();
    });
    broker.on('close', () => {
      sockets.delete(broker);
      client.destroy();
    });
    client.on('error', drop);
    broker.on('error', drop);
    client.pause();
    broker.connect(port, host, () => client.resume());
    broker.on('data', (chunk: Buffer) => {
      if (!cut) client.write(chunk);
    });
    client.on('data', (chunk: Buffer) => {
      if (cut) return;
      const text = tail + chunk.toString('latin1');
      tail = text.slice(text.lastIndexOf('\n') + 1).slice(-TAIL);
      broker.write(chunk);
      if (cutPattern && cutPattern.test(text)) {
        cut = true;
        cuts++;
        // The server reads the publish, then the end of the stream; the client hears nothing more.
        broker.end();
        client.destroy();
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('the proxy has no TCP address');

  return {
    url: `nats://127.0.0.1:${address.port}`,
    cutAfterPublishTo(prefix: string) {
      const escaped = prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      cutPattern = new RegExp(`(^|\\n)H?PUB ${escaped}`);
    },
    passThrough() {
      cutPattern = null;
    },
    get cuts() {
      return cuts;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
