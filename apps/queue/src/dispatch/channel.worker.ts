import { Logger } from '@nestjs/common';
import { Kvm } from '@nats-io/kv';
import { nanos } from '@nats-io/nats-core';
import { setMaxListeners } from 'node:events';
import { ChannelConnector } from '@app/channels';
import { Clock } from '@app/server';
import { Channel, deadLetteredOutbound, EventEnvelope, KV_BUCKETS, Priority, Topology } from '@app/contracts';
import {
  ConsumerRunner,
  ConsumerSource,
  DeliveryStateStore,
  NatsClients,
  PulledMessage,
  Settlement,
} from '@app/messaging';
import { ChannelDispatch, ChannelDeliveryOptions, DeliveryClock } from './channel-dispatch';
import { RETURN_LEAD_MS, SendPacer, sleepUntil } from './send-pacer';
import { SharedSenderSlots } from './sender-slots';

export interface ChannelWorkerOptions extends ChannelDeliveryOptions {
  /** Messages in hand per lane (service, marketing) at the same time. */
  concurrency: number;
}

export interface ChannelWorkerDeps {
  channel: Channel;
  connector: ChannelConnector;
  clients: NatsClients;
  topology: Topology;
  publish: (event: EventEnvelope) => Promise<unknown>;
  options: ChannelWorkerOptions;
  clock: Clock;
}

/** What readiness shows about one channel's worker. */
export interface ChannelWorkerStatus {
  state: 'starting' | 'running' | 'backed_off' | 'stopped';
  /** ISO time until which the whole channel is paused after repeated transient failures. */
  backed_off_until?: string;
  /** Senders paused after the channel asked to slow down (429), with the ISO end of the pause. */
  paused_senders?: Record<string, string>;
  in_flight: number;
  last_error?: string;
}

const STARTUP_RETRY_MS = 2000;
const RETURN_POLL_MS = Math.floor(RETURN_LEAD_MS / 3);
const encoder = new TextEncoder();

/** The dead letter of a work item: its metadata, the attempts and the reason (at `now`), without content. */
function contentFreeCopy(pm: PulledMessage, reason: string, now: number): Uint8Array {
  let item: unknown = null;
  try {
    item = pm.json<unknown>();
  } catch {
    // Unreadable: only the delivery facts are kept.
  }
  const record = deadLetteredOutbound(item, { attempts: pm.meta.deliveryCount, reason, at: now });
  return encoder.encode(JSON.stringify(record));
}

/**
 * Runs one channel's deliveries: a ConsumerRunner over the channel's service and marketing
 * consumers (service first), each message kept alive while in hand and decided by ChannelDispatch.
 * It knows no channel: the connector classifies refusals and names its pacing, and the pacing of a
 * sender is shared with every other replica through the sender_pacing bucket.
 */
export class ChannelWorker {
  private readonly logger: Logger;
  private readonly abort = new AbortController();
  private runner?: ConsumerRunner;
  private delivery?: ChannelDispatch;
  private pacer?: SendPacer;
  private starting?: Promise<void>;
  private stopped = false;
  private keepAliveMs = 10_000;
  private bootError?: unknown;
  /** The service's clock, in the shapes the pacer and the delivery decisions take. */
  private readonly now = (): number => this.deps.clock.nowMs();
  private readonly deliveryClock: DeliveryClock = {
    now: this.now,
    sleepUntil: (at, signal) => sleepUntil(at, this.now, signal),
  };

  constructor(private readonly deps: ChannelWorkerDeps) {
    this.logger = new Logger(`ChannelWorker:${deps.channel}`);
    // Every message in hand may wait on the stop signal at once.
    setMaxListeners(0, this.abort.signal);
  }

  get channel(): Channel {
    return this.deps.channel;
  }

  /** Starts in the background: waits for the consumers and the buckets if the setup step has not run yet. */
  start(): void {
    this.starting ??= this.boot();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.abort.abort();
    await this.starting;
    await this.runner?.stop();
  }

  status(): ChannelWorkerStatus {
    const now = this.deps.clock.nowMs();
    const paused = Object.entries(this.pacer?.pausedSenders() ?? {});
    const backedOff = this.delivery?.channelBackedOffUntil ?? 0;
    const recent =
      this.delivery?.recentError() ?? (this.bootError instanceof Error ? this.bootError.message : undefined);
    return {
      state: this.stopped ? 'stopped' : !this.runner ? 'starting' : backedOff > now ? 'backed_off' : 'running',
      ...(backedOff > now ? { backed_off_until: new Date(backedOff).toISOString() } : {}),
      ...(paused.length
        ? { paused_senders: Object.fromEntries(paused.map(([s, until]) => [s, new Date(until).toISOString()])) }
        : {}),
      in_flight: this.runner?.busy ?? 0,
      ...(recent ? { last_error: recent } : {}),
    };
  }

  private async boot(): Promise<void> {
    const { clients, topology, connector, options, channel } = this.deps;
    while (!this.stopped) {
      try {
        const jsm = await clients.jsm();
        const sources: ConsumerSource[] = (['service', 'marketing'] as Priority[]).map((p) => ({
          stream: topology.outboundStream(p),
          consumer: topology.outboundConsumer(p, channel),
          maxDeliver: 0,
        }));
        const maxDeliver = new Map<string, number>();
        let ackWaitMs = Infinity;
        for (const s of sources) {
          // The consumers' own limits, so the worker agrees with whatever the setup step declared.
          const info = await jsm.consumers.info(s.stream, s.consumer);
          s.maxDeliver = info.config.max_deliver ?? -1;
          maxDeliver.set(s.stream, s.maxDeliver > 0 ? s.maxDeliver : 0);
          ackWaitMs = Math.min(ackWaitMs, Number(info.config.ack_wait ?? nanos(30_000)) / 1e6);
        }
        this.keepAliveMs = Math.max(100, Math.floor(ackWaitMs / 3));
        const store = await DeliveryStateStore.open(clients.js, topology);
        const pacing = await new Kvm(clients.js).open(topology.kvBucket(KV_BUCKETS.senderPacing));
        await pacing.status(); // binding is lazy: a missing bucket must fail here
        if (this.stopped) return;
        this.pacer = new SendPacer(
          connector.pacing,
          this.now,
          new SharedSenderSlots(pacing, channel, connector.pacing, this.now),
        );
        this.delivery = new ChannelDispatch({
          channel,
          connector,
          pacer: this.pacer,
          store,
          publish: this.deps.publish,
          clock: this.deliveryClock,
          options,
          marketingStream: topology.outboundStream('marketing'),
          maxDeliver: (stream) => maxDeliver.get(stream) ?? 0,
          signal: this.abort.signal,
        });
        this.runner = new ConsumerRunner(clients.nc, clients.js, {
          sources,
          handler: (m) => this.handle(m),
          deadLetterSubject: (s) => topology.deadLetterSubject(s.stream, s.consumer),
          // The content lives only as long as delivery needs it: a dead letter keeps the metadata.
          deadLetterBody: (pm, reason) => contentFreeCopy(pm, reason, this.now()),
          removeDeadLettered: true,
          backoff: options.backoff,
          inHandPerSource: options.concurrency,
          wakeSubjects: [topology.outboundWildcard(channel)],
          // Messages deferred until their sender's turn come back silently: look often enough that
          // they are in hand before their slot (RETURN_LEAD_MS).
          idlePollMs: RETURN_POLL_MS,
          onError: (err, context) => {
            this.delivery?.noteError(err);
            this.logger.warn({ err, channel, ...context }, 'delivery worker error');
          },
        });
        this.runner.start();
        this.logger.log({ channel }, 'delivery worker started');
        return;
      } catch (err) {
        this.bootError = err;
        this.logger.warn({ err, channel }, 'delivery worker waiting for its consumers and buckets');
        await sleepUntil(this.now() + STARTUP_RETRY_MS, this.now, this.abort.signal).catch(() => undefined);
      }
    }
  }

  /** Keeps the message's ack timer alive for as long as it is in hand (pacing, grace waits, the call). */
  private async handle(pm: PulledMessage): Promise<Settlement> {
    const keepAlive = setInterval(() => {
      try {
        pm.working();
      } catch {
        // Connection closed: the server redelivers after ack_wait; nothing to do here.
      }
    }, this.keepAliveMs);
    try {
      return await (this.delivery as ChannelDispatch).deliver(pm);
    } finally {
      clearInterval(keepAlive);
    }
  }
}
