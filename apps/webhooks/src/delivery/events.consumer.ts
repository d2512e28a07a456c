import { GroupCommit } from '@app/database';
import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { EventEnvelope, isEventType, isUuid, STATUS_OF_EVENT, statusRank, Topology } from '@app/contracts';
import {
  ConsumerRunner,
  currentTraceparent,
  DEFAULT_TOPOLOGY_OPTIONS,
  NatsClients,
  PulledMessage,
  settle,
  Settlement,
  EVENTS_LINGER_MS,
} from '@app/messaging';
import { FannedOut, FanOutEvent, FanOutRepository } from './fan-out.repository';
import { DeliveryDispatcher } from './delivery-dispatcher';

/** The body subscribers receive: the envelope without the routing-only tenant id, in a fixed key order. */
export function webhookBody(e: EventEnvelope): string {
  return JSON.stringify({
    id: e.id,
    type: e.type,
    created_at: e.created_at,
    channel: e.channel ?? null,
    app_id: e.app_id ?? null,
    data: e.data,
  });
}

/** The message an event is about, when it names one. */
function messageIdOf(e: EventEnvelope): string | null {
  const id = e.data.message_id;
  return typeof id === 'string' && id.length > 0 && id.length <= 200 ? id : null;
}

/** The events of one message are delivered one after another, in stream order; other events need no order. */
export function orderKeyOf(e: EventEnvelope): string | null {
  const id = messageIdOf(e);
  return id === null ? null : `message:${id}`;
}

/** A status event's message and its status's rank in the lifecycle (fanned out forward only); null otherwise. */
export function statusStepOf(e: EventEnvelope): { messageId: string; rank: number } | null {
  const status = STATUS_OF_EVENT[e.type];
  const messageId = messageIdOf(e);
  return status && messageId !== null ? { messageId, rank: statusRank(status) } : null;
}

/** Null when the message is not an event envelope the platform would publish. */
export function parseEnvelope(raw: unknown): EventEnvelope | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const e = raw as Partial<EventEnvelope>;
  if (typeof e.id !== 'string' || e.id.length === 0 || e.id.length > 200) return null;
  if (!isEventType(e.type)) return null;
  if (typeof e.created_at !== 'number' || !Number.isFinite(e.created_at)) return null;
  if (typeof e.data !== 'object' || e.data === null || Array.isArray(e.data)) return null;
  if (e.app_id !== undefined && e.app_id !== null && !Number.isInteger(e.app_id)) return null;
  if (e.user_id !== undefined && e.user_id !== null && typeof e.user_id !== 'string') return null;
  return e as EventEnvelope;
}

/**
 * The durable consumer of EVENTS: turns each event into one delivery row per matching
 * subscription (a held one while its endpoint is parked; the dispatcher moves it in line) and
 * acks only after they are committed, so an event is never lost to a crash (JetStream redelivers
 * it) and never doubled (one row per subscription and event). Events handled at once are written
 * together (one statement per batch), in stream order, so a subscription's deliveries follow the
 * events' order.
 */
@Injectable()
export class FanOutConsumer implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(FanOutConsumer.name);
  private runner?: ConsumerRunner;
  private readonly fanOut: GroupCommit<FanOutEvent, FannedOut>;

  constructor(
    private readonly clients: NatsClients,
    private readonly topology: Topology,
    deliveries: FanOutRepository,
    private readonly dispatcher: DeliveryDispatcher,
  ) {
    this.fanOut = new GroupCommit((_key, events) => deliveries.fanOut(events), 500);
  }

  onApplicationBootstrap(): void {
    const t = this.topology;
    this.runner = new ConsumerRunner(this.clients.nc, this.clients.js, {
      sources: [
        {
          stream: t.stream('events'),
          consumer: t.eventConsumer('webhooks'),
          maxDeliver: DEFAULT_TOPOLOGY_OPTIONS.eventsMaxDeliver,
        },
      ],
      handler: (msg) => this.handle(msg),
      deadLetterSubject: (s) => t.deadLetterSubject(s.stream, s.consumer),
      // A long backoff rides out a database outage of about an hour before an event is dead-lettered.
      backoff: { baseMs: 1000, maxMs: 5 * 60_000 },
      batch: 50,
      lingerMs: EVENTS_LINGER_MS,
      wakeSubjects: [t.eventsWildcard()],
      onError: (err, context) => this.logger.warn({ ...context, err: String(err) }, 'events consumer error'),
    });
    this.runner.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.runner?.stop();
  }

  private async handle(msg: PulledMessage): Promise<Settlement> {
    let raw: unknown;
    try {
      raw = msg.json<unknown>();
    } catch {
      return settle.dead('not JSON');
    }
    const event = parseEnvelope(raw);
    if (!event) return settle.dead('not an event envelope');
    // Events without a tenant have no subscribers.
    if (!event.user_id || !isUuid(event.user_id)) return settle.ack();
    const { ready, toRelease } = await this.fanOut.submit('', {
      eventId: event.id,
      type: event.type,
      userId: event.user_id,
      appId: event.app_id ?? null,
      createdAt: new Date(event.created_at * 1000),
      streamSeq: msg.meta.streamSeq,
      payload: webhookBody(event),
      orderKey: orderKeyOf(event),
      status: statusStepOf(event),
      // This event's consumer span: each delivery's attempts become its children.
      traceparent: currentTraceparent(),
    });
    if (toRelease > 0) this.dispatcher.requestRelease();
    else if (ready > 0) this.dispatcher.wake();
    return settle.ack();
  }
}
