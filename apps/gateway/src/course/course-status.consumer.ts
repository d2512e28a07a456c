import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { EventEnvelope, isUuid, MessageStatusData, Topology } from '@app/contracts';
import { ConsumerRunner, DEFAULT_TOPOLOGY_OPTIONS, NatsClients, settle, Settlement } from '@app/messaging';
import { GroupCommit, storableText } from '@app/database';
import { ConnectionsRepository } from '../connections/connections.repository';
import { ConversationsRecorder } from '../conversations/conversations.recorder';
import { CourseOutboxWorker } from './course-outbox.worker';
import { CourseReplies } from './course-replies';
import { CourseMessageRow, CourseRepository } from './course.repository';

/** The statuses posted back to course platforms, by event type. */
const STATUS_EVENTS: Record<string, string> = {
  'message.sent': 'sent',
  'message.delivered': 'delivered',
  'message.read': 'read',
  'message.failed': 'failed',
};

/** Lookups of events handled at the same time share one query, up to this many. */
const LOOKUP_BATCH = 500;

/**
 * Events in hand at once. The events that come while a batch is being recorded are recorded
 * together next (a few statements whatever their number), so under load the batches grow instead
 * of the wait.
 */
const EVENTS_IN_HAND = 500;

/** A status of a message whose course event is still being sent is looked at again this soon. */
const IN_FLIGHT_RETRY_MS = 250;

/** A status event's message's course link, and whether its tenant has a course event being sent now. */
interface StatusLookup {
  link: CourseMessageRow | null;
  inFlight: boolean;
}

/** The JSON posted to the platform for one status (docs/course.md, Outbound events). */
export interface CourseStatusEvent {
  event: string;
  message_id: string;
  event_id: string;
  student: string;
  status: string;
  /** Unix seconds: when the channel reported the status. */
  at: number;
  reason?: string;
}

/**
 * The gateway's durable consumer of the EVENTS stream, for course platforms: a status of a message
 * sent for a course event becomes a status event in the outbox of its student (see
 * CourseOutboxWorker), in the order the statuses come; a status that comes after a later one of the
 * same message is dropped. Statuses of other messages are acknowledged and forgotten. Every event
 * is first handed to the conversations (ConversationsRecorder: inbound messages and outbound statuses).
 */
@Injectable()
export class CourseStatusConsumer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('CourseStatusConsumer');
  private runner?: ConsumerRunner;
  /** Events are handled one after another, in the order pulled. */
  private order: Promise<unknown> = Promise.resolve();
  private readonly lookups = new GroupCommit<{ messageId: string; userId: string | null }, StatusLookup>(
    async (_, items) => {
      const { links, sending } = await this.course.statusLookups(
        items.map((i) => i.messageId),
        items.flatMap((i) => (i.userId ? [i.userId] : [])),
      );
      return items.map((i) => ({
        link: links.get(i.messageId) ?? null,
        inFlight: i.userId !== null && sending.has(i.userId),
      }));
    },
    LOOKUP_BATCH,
  );

  constructor(
    private readonly clients: NatsClients,
    private readonly topology: Topology,
    private readonly course: CourseRepository,
    private readonly connections: ConnectionsRepository,
    private readonly outbox: CourseOutboxWorker,
    private readonly conversations: ConversationsRecorder,
    private readonly replies: CourseReplies,
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
        // A NUL (hostile or broken input) would fail the batched statements of every event pulled with it.
        const event = storableText(msg.json<EventEnvelope>());
        // Looked up at once, together with the other events of the pull; used in order.
        const lookup = this.lookUp(event);
        lookup.catch(() => undefined);
        // Recorded at once too, with the other events of the pull in one batch; awaited in order.
        const recorded = this.conversations.record(event);
        recorded.catch(() => undefined);
        // What the course replies read, for the pull's inbound messages together; used in order.
        const ahead = this.replies.prefetch(event);
        ahead.catch(() => undefined);
        const next = this.order.then(() => this.handle(event, lookup, recorded, ahead));
        this.order = next.catch(() => undefined);
        return next;
      },
      deadLetterSubject: (s) => t.deadLetterSubject(s.stream, s.consumer),
      backoff: { baseMs: 500, maxMs: 60_000 },
      // Pulled while the batch before is recorded: it is recorded the moment that one is done.
      inHandPerSource: EVENTS_IN_HAND,
      wakeSubjects: [t.eventsWildcard()],
      onError: (err, context) => this.logger.warn({ err: String(err), ...context }, 'status event not handled yet'),
    });
    this.runner.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.runner?.stop();
  }

  /**
   * What handling a status event needs from the database: the course link of its message, and
   * whether a course event of its tenant is being sent right now (for a message with no link yet).
   * Null: not a status of one of our messages. The lookups of events handled at the same time go
   * in one query.
   */
  private lookUp(event: EventEnvelope): Promise<StatusLookup | null> {
    if (!STATUS_EVENTS[event.type]) return Promise.resolve(null);
    const messageId = (event.data as Partial<MessageStatusData> | null)?.message_id;
    // Only our own message ids (UUIDs) can be linked to a course event.
    if (!isUuid(messageId)) return Promise.resolve(null);
    return this.lookups.submit('status', { messageId, userId: event.user_id ?? null });
  }

  async handle(
    event: EventEnvelope,
    lookup = this.lookUp(event),
    recorded = this.conversations.record(event),
    ahead = this.replies.prefetch(event),
  ): Promise<Settlement> {
    // Inbound messages and outbound statuses join their conversations (docs/conversations.md).
    await recorded;
    // An inbound message answers a course rule's wait, or starts a course event (docs/course.md).
    await this.replies.onEvent(event, ahead);
    const found = await lookup;
    if (!found) return settle.ack();
    const status = STATUS_EVENTS[event.type];
    const data = event.data as unknown as MessageStatusData;
    const link = found.link;
    if (!link) {
      // The send may be accepted, and even sent, before its link to the course event is written:
      // while a course event of this tenant is being sent, its statuses wait a moment.
      if (found.inFlight) {
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
      at,
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
