import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { EventEnvelope, Topology } from '@app/contracts';
import { ConsumerRunner, DEFAULT_TOPOLOGY_OPTIONS, NatsClients, EVENTS_LINGER_MS } from '@app/messaging';
import { EventHandlersRegistry } from './event-handlers.registry';

/**
 * The api's durable consumer of the EVENTS stream: message status, billing capture or release,
 * the 24-hour window, template status, app quality. Handlers are idempotent; a failing handler
 * gets the event again with backoff.
 */
@Injectable()
export class EventsConsumer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(EventsConsumer.name);
  private runner?: ConsumerRunner;

  constructor(
    private readonly clients: NatsClients,
    private readonly topology: Topology,
    private readonly registry: EventHandlersRegistry,
  ) {}

  onApplicationBootstrap(): void {
    const t = this.topology;
    this.runner = new ConsumerRunner(this.clients.nc, this.clients.js, {
      sources: [
        {
          stream: t.stream('events'),
          consumer: t.eventConsumer('api'),
          maxDeliver: DEFAULT_TOPOLOGY_OPTIONS.eventsMaxDeliver,
        },
      ],
      handler: async (msg) => {
        await this.registry.dispatch(msg.json<EventEnvelope>());
      },
      deadLetterSubject: (s) => t.deadLetterSubject(s.stream, s.consumer),
      backoff: { baseMs: 500, maxMs: 60_000 },
      batch: 50,
      lingerMs: EVENTS_LINGER_MS,
      wakeSubjects: [t.eventsWildcard()],
      onError: (err, context) => this.logger.warn({ err, ...context }, 'event handling failed'),
    });
    this.runner.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.runner?.stop();
  }
}
