import { DynamicModule, Global, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { EventEnvelope, Topology } from '@app/contracts';
import { NatsClients } from './nats-connection';
import { MESSAGING_OPTIONS, MessagingModuleOptions } from './options';
import { publishDurable, PublishResult } from './publisher';
import { RpcClient } from './rpc';

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
        {
          provide: NatsClients,
          useFactory: () => NatsClients.connect({ url: opts.url, name: opts.name, prefix: opts.prefix }),
        },
        NatsShutdown,
        EventPublisher,
        RpcClient,
      ],
      exports: [MESSAGING_OPTIONS, Topology, NatsClients, EventPublisher, RpcClient],
    };
  }
}
