import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { ChannelRegistry } from '@app/channels';
import { Channel, Topology } from '@app/contracts';
import { EventPublisher, NatsClients, RpcClient } from '@app/messaging';
import { Clock } from '@app/server';
import { QueueConfig } from '../config';
import { ChannelWorker, ChannelWorkerStatus } from './channel.worker';
import { LibraryMediaConnector } from './library-media.connector';

/** What readiness shows about delivery: which channels this replica serves and how each is doing. */
export interface DispatchDetails {
  active_channels: Channel[];
  /** Channels listed in CHANNELS that have no connector configured, so no worker. */
  inactive_channels: Channel[];
  channels: Partial<Record<Channel, ChannelWorkerStatus>>;
}

/** Starts one worker per channel of CHANNELS that has a connector, and stops them on shutdown. */
@Injectable()
export class DispatchService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(DispatchService.name);
  private readonly workers = new Map<Channel, ChannelWorker>();

  constructor(
    private readonly config: QueueConfig,
    private readonly registry: ChannelRegistry,
    private readonly clients: NatsClients,
    private readonly topology: Topology,
    private readonly events: EventPublisher,
    private readonly clock: Clock,
    private readonly rpc: RpcClient,
  ) {}

  get activeChannels(): Channel[] {
    return this.config.channelList.filter((c) => this.registry.has(c));
  }

  onApplicationBootstrap(): void {
    const c = this.config;
    for (const channel of this.activeChannels) {
      const worker = new ChannelWorker({
        channel,
        // Media library files go by each sender's handle, uploaded once (docs/media.md).
        connector: LibraryMediaConnector.wrap(this.registry.get(channel), this.rpc, this.clients, this.topology, () =>
          this.clock.nowSeconds(),
        ),
        clients: this.clients,
        topology: this.topology,
        publish: (event) => this.events.publish(event),
        clock: this.clock,
        options: {
          concurrency: c.QUEUE_CONCURRENCY,
          backoff: { baseMs: c.QUEUE_BACKOFF_BASE_MS, maxMs: c.QUEUE_BACKOFF_MAX_MS },
          uncertainGraceMs: c.QUEUE_UNCERTAIN_GRACE_MS,
          failureThreshold: c.QUEUE_CHANNEL_FAILURE_THRESHOLD,
        },
      });
      this.workers.set(channel, worker);
      worker.start();
    }
    const inactive = this.config.channelList.filter((ch) => !this.registry.has(ch));
    this.logger.log({ active: this.activeChannels, inactive }, 'delivery workers starting');
  }

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all([...this.workers.values()].map((w) => w.stop()));
  }

  details(): DispatchDetails {
    return {
      active_channels: this.activeChannels,
      inactive_channels: this.config.channelList.filter((ch) => !this.registry.has(ch)),
      channels: Object.fromEntries([...this.workers].map(([ch, w]) => [ch, w.status()])),
    };
  }
}
