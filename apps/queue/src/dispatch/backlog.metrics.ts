import { Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { Priority, Topology } from '@app/contracts';
import { NatsClients } from '@app/messaging';
import { metricsRegistry } from '@app/server';
import { QueueConfig } from '../config';

interface Source {
  clients: NatsClients;
  topology: Topology;
  config: QueueConfig;
}
let current: Source | undefined;
const LANES: Priority[] = ['service', 'marketing'];

/** Messages waiting in JetStream per channel and lane (priority), read from the consumers at each scrape. */
const depth =
  (metricsRegistry.getSingleMetric('queue_depth_messages') as Gauge<string> | undefined) ??
  new Gauge({
    name: 'queue_depth_messages',
    help: 'Outbound messages waiting in JetStream (not yet handed to a worker), per channel and lane',
    labelNames: ['channel', 'lane'],
    async collect() {
      const src = current;
      if (!src) return;
      try {
        const jsm = await src.clients.jsm();
        for (const channel of src.config.channelList) {
          for (const lane of LANES) {
            const info = await jsm.consumers.info(
              src.topology.outboundStream(lane),
              src.topology.outboundConsumer(lane, channel),
            );
            this.labels(channel, lane).set(info.num_pending);
          }
        }
      } catch {
        // NATS away: keep the last figures; readiness reports the outage.
      }
    },
  });
void depth;

/** Points the gauge at this process's NATS connection and channels. */
@Injectable()
export class QueueBacklogMetrics implements OnModuleInit, OnModuleDestroy {
  private readonly source: Source;

  constructor(clients: NatsClients, topology: Topology, config: QueueConfig) {
    this.source = { clients, topology, config };
  }

  onModuleInit(): void {
    current = this.source;
  }

  onModuleDestroy(): void {
    if (current === this.source) current = undefined;
  }
}
