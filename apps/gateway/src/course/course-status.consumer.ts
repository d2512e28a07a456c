import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { EventEnvelope, isUuid, MessageStatusData, Topology } from '@app/contracts';
import {
  ConsumerRunner,
  DEFAULT_TOPOLOGY_OPTIONS,
  NatsClients,
  settle,
  Settlement,
  EVENTS_LINGER_MS,
} from '@app/messaging';
import { ConnectionsRepository } from '../connections/connections.repository';
import { CourseOutboxWorker } from './course-outbox.worker';
import { CourseRepository } from './course.repository';

/** The statuses posted back to course platforms, by event type. */
const STATUS_EVENTS: Record<string, string> = {
  'message.sent': 'sent',
  'message.delivered': 'delivered',
  'message.read': 'read',
  'message.failed': 'failed',
};

/** A status of a message whose course event is still being sent is looked at again this soon. */
const IN_FLIGHT_RETRY_MS = 250;

/** The JSON posted to the platform for one status (docs/course.md, Outbound events). */
export interface CourseStatusEvent {
  event: string;
  message_id: string;
  event_id: string;
  student: string;
  status: string;
  at: string;
  reason?: string;
}

/**
 * The gateway's durable consumer of the EVENTS stream, for course platforms: a status of a message
 * sent for a course event becomes a status event in the outbox of its student (see
 * CourseOutboxWorker), in the order the statuses come; a status that comes after a later one of the
 * same message is dropped. Statuses of other messages are acknowledged and forgotten.
 */
@Injectable()
export class CourseStatusConsumer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('CourseStatusConsumer');
  private runner?: ConsumerRunner;
  /** Events are handled one after another, in the order pulled. */
  private order: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly clients: NatsClients,
    private readonly topology: Topology,
    private readonly course: CourseRepository,
    private readonly connections: ConnectionsRepository,
    private readonly outbox: CourseOutboxWorker,
  ) {}

  onApplicationBootstrap(): void {
    const t = this.topology;
    this.runner = new ConsumerRunner(this.clients.nc, this.clients.js, {
      sources: [
        {
          stream: t.stream('events'),
          consumer: t.eventConsumer('gateway'),
          maxDeliver: DEFAULT_TOPOLOGY_OPTIONS.eventsMaxDeliver,
        },
      ],
      handler: (msg) => {
        const next = this.order.then(() => this.handle(msg.json<EventEnvelope>()));
        this.order = next.catch(() => undefined);
        return next;
      },
      deadLetterSubject: (s) => t.deadLetterSubject(s.stream, s.consumer),
      backoff: { baseMs: 500, maxMs: 60_000 },
      batch: 50,
      lingerMs: EVENTS_LINGER_MS,
      wakeSubjects: [t.eventsWildcard()],
      onError: (err, context) => this.logger.warn({ err: String(err), ...context }, 'status event not handled yet'),
    });
    this.runner.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.runner?.stop();
  }

  async handle(event: EventEnvelope): Promise<Settlement> {
    const status = STATUS_EVENTS[event.type];
    if (!status) return settle.ack();
    const data = event.data as unknown as MessageStatusData;
    // Only our own message ids (UUIDs) can be linked to a course event.
    if (!isUuid(data?.message_id)) return settle.ack();
    const link = await this.course.findMessage(data.message_id);
    if (!link) {
      // The send may be accepted, and even sent, before its link to the course event is written:
      // while a course event of this tenant is being sent, its statuses wait a moment.
      if (event.user_id && (await this.course.sendsInFlightFor(event.user_id))) {
        return settle.retry('the course event of this message is still being sent', IN_FLIGHT_RETRY_MS);
      }
      return settle.ack();
    }
    const connection = await this.connections.findById(link.connection_id);
    if (!connection || connection.state === 'disconnected') return settle.ack();
    const at = Number.isFinite(data.timestamp) && data.timestamp > 0 ? data.timestamp : event.created_at;
    const body: CourseStatusEvent = {
      event: event.type,
      message_id: data.message_id,
      event_id: link.event_id,
      student: link.student,
      status,
      at: new Date(at * 1000).toISOString(),
      ...(status === 'failed' && data.error ? { reason: `${data.error.title} (${data.error.code})` } : {}),
    };
    const queued = await this.course.enqueueStatus({
      connectionId: link.connection_id,
      student: link.student,
      messageId: data.message_id,
      status,
      body: JSON.stringify(body),
    });
    if (queued) this.outbox.poke();
    return settle.ack();
  }
}
