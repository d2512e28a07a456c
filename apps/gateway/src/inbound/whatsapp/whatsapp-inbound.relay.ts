import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { AppSignal, EventEnvelope, Topology } from '@app/contracts';
import { ConsumerRunner, DEFAULT_TOPOLOGY_OPTIONS, NatsClients } from '@app/messaging';
import { WhatsAppInboundService } from './whatsapp-inbound.service';

/**
 * The second half of a WhatsApp callback: the gateway's durable consumer of the INBOUND stream
 * stamps each stored event with its owner and relays it to EVENTS, and hands each account signal
 * to the api, which applies it to the app. While the api cannot answer, an
 * event waits in INBOUND and is tried again (back-off up to 5 s), so an outage of the api
 * delays events but loses none, and the channel was answered long before.
 */
@Injectable()
export class WhatsAppInboundRelay implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('WhatsAppInboundRelay');
  private runner?: ConsumerRunner;

  constructor(
    private readonly clients: NatsClients,
    private readonly topology: Topology,
    private readonly inbound: WhatsAppInboundService,
  ) {}

  onApplicationBootstrap(): void {
    const t = this.topology;
    this.runner = new ConsumerRunner(this.clients.nc, this.clients.js, {
      sources: [
        {
          stream: t.stream('inbound'),
          consumer: t.inboundConsumer(),
          maxDeliver: DEFAULT_TOPOLOGY_OPTIONS.inboundMaxDeliver,
        },
      ],
      handler: (msg) =>
        msg.subject === t.inboundSignalSubject('whatsapp')
          ? this.inbound.relaySignal(msg.json<AppSignal>())
          : this.inbound.relay(msg.json<EventEnvelope>()),
      deadLetterSubject: (s) => t.deadLetterSubject(s.stream, s.consumer),
      // Short: after an outage the waiting callbacks follow within seconds, well inside EVENTS'
      // duplicate window (a status the queue also reported keeps its one event id).
      backoff: { baseMs: 500, maxMs: 5_000 },
      batch: 50,
      wakeSubjects: t.streamSubjects('inbound'),
      onError: (err, context) => this.logger.warn({ err: String(err), ...context }, 'event not relayed yet'),
    });
    this.runner.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.runner?.stop();
  }
}
