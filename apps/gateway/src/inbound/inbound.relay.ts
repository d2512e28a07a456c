import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { AppSignal, EventEnvelope, LinkClick, PixelOpen, Topology } from '@app/contracts';
import {
  ConsumerRunner,
  DEFAULT_TOPOLOGY_OPTIONS,
  NatsClients,
  PulledMessage,
  EVENTS_LINGER_MS,
  Settlement,
} from '@app/messaging';
import { LinksService } from '../links/links.service';
import { PixelOpensService } from '../pixel/pixel-opens.service';
import { WhatsAppInboundService } from './whatsapp/whatsapp-inbound.service';

/**
 * The second half of what the gateway acknowledged before acting on it: its durable consumer of
 * the INBOUND stream stamps each stored WhatsApp event with its owner and relays it to EVENTS,
 * hands each WhatsApp account signal to the api, which applies it to the app, and records each
 * stored pixel open. While the api cannot answer, an item waits in INBOUND and is
 * tried again (back-off up to 5 s), so an outage of the api delays events but loses none, and the
 * channel (or the reader of the pixel) was answered long before.
 */
@Injectable()
export class InboundRelay implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('InboundRelay');
  private runner?: ConsumerRunner;

  constructor(
    private readonly clients: NatsClients,
    private readonly topology: Topology,
    private readonly inbound: WhatsAppInboundService,
    private readonly pixelOpens: PixelOpensService,
    private readonly links: LinksService,
  ) {}

  /** One consumer for the whole stream (a work queue takes no overlapping consumers): routed by subject. */
  private handle(msg: PulledMessage): Promise<Settlement | void> {
    if (msg.subject === this.topology.pixelOpenSubject()) return this.pixelOpens.record(msg.json<PixelOpen>());
    if (msg.subject === this.topology.linkClickSubject()) return this.links.record(msg.json<LinkClick>());
    if (msg.subject === this.topology.inboundSignalSubject('whatsapp'))
      return this.inbound.relaySignal(msg.json<AppSignal>());
    return this.inbound.relay(msg.json<EventEnvelope>());
  }

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
      handler: (msg) => this.handle(msg),
      deadLetterSubject: (s) => t.deadLetterSubject(s.stream, s.consumer),
      // Short: after an outage the waiting callbacks follow within seconds, well inside EVENTS'
      // duplicate window (a status the queue also reported keeps its one event id).
      backoff: { baseMs: 500, maxMs: 5_000 },
      batch: 50,
      lingerMs: EVENTS_LINGER_MS,
      wakeSubjects: t.streamSubjects('inbound'),
      onError: (err, context) => this.logger.warn({ err: String(err), ...context }, 'event not relayed yet'),
    });
    this.runner.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.runner?.stop();
  }
}
