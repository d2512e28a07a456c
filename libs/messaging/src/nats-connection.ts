import { Topology } from '@app/contracts';
import { connectCoalescing } from './coalescing-transport';
import { createInbox, type NatsConnection } from '@nats-io/nats-core';
import { jetstream, JetStreamClient, jetstreamManager, JetStreamManager } from '@nats-io/jetstream';

export interface NatsConnectOptions {
  url: string;
  /** Shown in the server's connection list: the service name. */
  name: string;
  /** The NATS user to connect as; by default the one in the environment (natsAuth). */
  auth?: NatsAuth;
  /** The topology prefix: a user's own inbox lies under it (natsInboxPrefix). */
  prefix?: string;
}

/** A service's NATS user: each service has its own, with rights to its own subjects only. */
export interface NatsAuth {
  user?: string;
  pass?: string;
}

/**
 * The NATS credentials of this process, `NATS_USER` and `NATS_PASSWORD` (validated with the rest
 * of the configuration at start). The one place both NATS clients (@nats-io for JetStream, the
 * @nestjs/microservices transport for RPC) take their credentials from; none when unset.
 */
export function natsAuth(env: NodeJS.ProcessEnv = process.env): NatsAuth {
  return env.NATS_USER ? { user: env.NATS_USER, pass: env.NATS_PASSWORD ?? '' } : {};
}

/**
 * Where the replies to a service user's requests arrive (every RPC answer, JetStream API answer
 * and pulled message): `_INBOX.<user>`, or `<prefix>._INBOX.<user>` under a topology prefix. Each
 * user may subscribe to its own only (natsPermissions), so none reads the answers meant for another.
 */
export function natsInboxPrefix(t: Topology, user: string): string {
  return t.subject('_INBOX', user);
}

/**
 * Connection options with the user's own inbox prefix, when they name a user; every client a
 * service connects (@nats-io, the Nest transport's client and server) goes through this. Without
 * a user (no authorization) the library's shared `_INBOX` stays.
 */
export function withOwnInbox<T extends { user?: string }>(options: T, prefix: string): T & { inboxPrefix?: string } {
  return options.user ? { ...options, inboxPrefix: natsInboxPrefix(new Topology(prefix), options.user) } : options;
}

/** A fresh inbox under the connection's own prefix, for a subscription that takes several replies. */
export function inboxOf(nc: NatsConnection): string {
  // The client keeps its options on the connection without typing them (the JetStream client reads them so too).
  return createInbox((nc as NatsConnection & { options?: { inboxPrefix?: string } }).options?.inboxPrefix);
}

/**
 * Connects with endless reconnects, so a NATS restart is survived without a pod restart. Requests
 * (every JetStream publish and acknowledgement) do not capture the caller's stack up front
 * (`noAsyncTraces`): that was two stack captures per request, a tenth of a relaying service's CPU,
 * for the rare request that fails, whose error still says what timed out or failed.
 */
/**
 * Every connection of a service, the request/reply ones of the Nest transport included, reconnects
 * for as long as the service runs: the client's default gives up after about 20 s, and a NATS outage
 * longer than that would leave a running service deaf to requests (or unable to make them) for good.
 */
export const RECONNECT_FOREVER = { maxReconnectAttempts: -1, reconnectTimeWait: 500 } as const;

export async function connectNats(opts: NatsConnectOptions): Promise<NatsConnection> {
  return connectCoalescing({
    ...withOwnInbox(opts.auth ?? natsAuth(), opts.prefix ?? ''),
    servers: opts.url.split(','),
    name: opts.name,
    ...RECONNECT_FOREVER,
    timeout: 5000,
    noAsyncTraces: true,
  });
}

/** One NATS connection per process, with its JetStream client and manager. */
export class NatsClients {
  private manager?: JetStreamManager;
  private connectedNow = true;
  private readonly reconnected = new Set<() => void>();

  constructor(readonly nc: NatsConnection) {}

  static async connect(opts: NatsConnectOptions): Promise<NatsClients> {
    const clients = new NatsClients(await connectNats(opts));
    clients.watchStatus();
    return clients;
  }

  private client?: JetStreamClient;

  get js(): JetStreamClient {
    this.client ??= jetstream(this.nc);
    return this.client;
  }

  async jsm(): Promise<JetStreamManager> {
    this.manager ??= await jetstreamManager(this.nc);
    return this.manager;
  }

  /** Connected and not draining: a cheap readiness signal. */
  isConnected(): boolean {
    return !this.nc.isClosed() && !this.nc.isDraining() && this.connectedNow;
  }

  /** Tracks disconnects so readiness flips to false while the server is away. */
  watchStatus(): void {
    void (async () => {
      for await (const s of this.nc.status()) {
        if (s.type === 'disconnect' || s.type === 'staleConnection') this.connectedNow = false;
        if (s.type === 'reconnect') {
          this.connectedNow = true;
          for (const listener of this.reconnected) listener();
        }
      }
    })();
  }

  /**
   * Calls `listener` each time the connection is back after a disconnect (its subscriptions are
   * made again first): what was published meanwhile, it did not see. Returns the way to stop.
   */
  onReconnect(listener: () => void): () => void {
    this.reconnected.add(listener);
    return () => this.reconnected.delete(listener);
  }

  /** Round trip to the server; rejects when it is unreachable. */
  async ping(timeoutMs = 1000): Promise<void> {
    if (!this.isConnected()) throw new Error('NATS is not connected');
    await Promise.race([
      this.nc.flush(),
      new Promise((_, reject) => setTimeout(() => reject(new Error('NATS ping timed out')), timeoutMs).unref()),
    ]);
  }

  /** Drains (lets subscriptions finish), but closes outright when that takes longer than `timeoutMs`. */
  async drain(timeoutMs = 5000): Promise<void> {
    if (this.nc.isClosed()) return;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), timeoutMs);
    });
    try {
      const outcome = await Promise.race([this.nc.drain().then(() => 'drained' as const), late]);
      if (outcome === 'late') await this.nc.close();
    } catch {
      await this.nc.close();
    } finally {
      clearTimeout(timer);
    }
  }
}
