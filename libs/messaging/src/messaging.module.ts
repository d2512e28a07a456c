import { DynamicModule, Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { EventEnvelope, Topology } from '@app/contracts';
import { firstValueFrom, timeout as rxTimeout } from 'rxjs';
import { NatsClients } from './nats-connection';
import { publishDurable, PublishResult } from './publisher';
import { PrefixedClientNats } from './rpc';

export interface MessagingModuleOptions {
  url: string;
  prefix: string;
  /** The service name, shown in NATS connection lists. */
  name: string;
}

export const MESSAGING_OPTIONS = Symbol('MESSAGING_OPTIONS');

/** Raised when a request/reply call finds nobody answering or times out. */
export class RpcUnavailableError extends Error {
  constructor(
    readonly pattern: string,
    cause: unknown,
  ) {
    super(`no answer for ${pattern}: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'RpcUnavailableError';
  }
}

/** Raised when the answering service replied with an error. */
export class RpcRemoteError extends Error {
  constructor(
    readonly pattern: string,
    readonly remote: unknown,
  ) {
    super(
      `${pattern} failed: ${typeof remote === 'object' && remote && 'message' in remote ? String((remote as { message: unknown }).message) : JSON.stringify(remote)}`,
    );
    this.name = 'RpcRemoteError';
  }
}

/**
 * Nobody answered: a timeout, no responders, or the transport's "no subscribers listening" reply
 * (which the NATS transport hands back as if the remote side had failed).
 */
function isUnavailable(err: unknown): boolean {
  const e = (err ?? {}) as { name?: unknown; message?: unknown; type?: unknown };
  const name = typeof e.name === 'string' ? e.name : '';
  const message = typeof e.message === 'string' ? e.message : '';
  return (
    name === 'TimeoutError' ||
    name === 'NatsError' ||
    e.type === 'EmptyResponseException' ||
    /no responders|no subscribers listening|503|timeout|CONNECTION_REFUSED|ECONNREFUSED/i.test(message)
  );
}

/** Publishes normalized events to the EVENTS stream (id = Nats-Msg-Id). */
@Injectable()
export class EventPublisher {
  constructor(
    private readonly clients: NatsClients,
    private readonly topology: Topology,
  ) {}

  publish(event: EventEnvelope): Promise<PublishResult> {
    return publishDurable(this.clients.js, this.topology.eventSubject(event.type), event, event.id);
  }
}

/** Request/reply over the @nestjs/microservices NATS transport, with typed errors. */
@Injectable()
export class RpcClient implements OnApplicationShutdown {
  private readonly proxy: PrefixedClientNats;

  constructor(@Inject(MESSAGING_OPTIONS) opts: MessagingModuleOptions) {
    this.proxy = new PrefixedClientNats({
      servers: opts.url.split(','),
      prefix: opts.prefix,
      name: `${opts.name}-rpc`,
    });
  }

  async send<R, D = unknown>(pattern: string, data: D, timeoutMs = 5000): Promise<R> {
    try {
      return await firstValueFrom(this.proxy.send<R, D>(pattern, data).pipe(rxTimeout(timeoutMs)));
    } catch (err) {
      if (isUnavailable(err)) throw new RpcUnavailableError(pattern, err);
      throw new RpcRemoteError(pattern, err);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.proxy.close();
  }
}

@Injectable()
class NatsShutdown implements OnApplicationShutdown {
  constructor(private readonly clients: NatsClients) {}

  async onApplicationShutdown(): Promise<void> {
    await this.clients.drain();
  }
}

/** The NATS connection, topology, event publisher and RPC client of one service. */
@Global()
@Module({})
export class MessagingModule {
  static forRoot(opts: MessagingModuleOptions): DynamicModule {
    return {
      module: MessagingModule,
      providers: [
        { provide: MESSAGING_OPTIONS, useValue: opts },
        { provide: Topology, useValue: new Topology(opts.prefix) },
        { provide: NatsClients, useFactory: () => NatsClients.connect({ url: opts.url, name: opts.name }) },
        NatsShutdown,
        EventPublisher,
        RpcClient,
      ],
      exports: [MESSAGING_OPTIONS, Topology, NatsClients, EventPublisher, RpcClient],
    };
  }
}
