import { Injectable } from '@nestjs/common';
import { CONVERSATION_CHANNELS, EventEnvelope, InboundContent, MessageReceivedData } from '@app/contracts';
import { GroupCommit } from '@app/database';
import { Clock } from '@app/server';
import { CourseOutboxWorker } from './course-outbox.worker';
import { CourseRepliesRepository, CourseTriggersRow, InboundPlace, studentKey } from './course-replies.repository';
import { CourseReplyContent, repliedPost, triggerOf } from './course-reply-posts';

/** Lookups of inbound messages handled at the same time share one query, up to this many. */
const LOOKUP_BATCH = 500;

const NO_ANSWER = { ended: [], answeredBefore: false };

/** What onEvent reads before it acts, for one inbound message (see CourseReplies.prefetch). */
export interface RepliesAhead {
  /** The sender had a wait (of any state) on the channel. */
  waits: boolean;
  /** The triggers of the course connections the message reached. */
  triggers: CourseTriggersRow[];
}

/** An inbound message as onEvent reads it. */
interface Inbound {
  place: InboundPlace;
  d: MessageReceivedData;
  content: InboundContent;
}

/** The inbound message an event is, when it is one course replies act on (an edit is none). */
function inboundOf(event: EventEnvelope): Inbound | null {
  if (event.type !== 'message.received' || !event.channel || !CONVERSATION_CHANNELS.includes(event.channel))
    return null;
  const d = event.data as unknown as MessageReceivedData | null;
  if (!d?.from || !d.provider_message_id) return null;
  const place: InboundPlace = {
    channel: event.channel,
    connectionId: event.channel === 'whatsapp' ? null : (d.connection_id ?? null),
    appId: event.channel === 'whatsapp' && event.app_id != null ? String(event.app_id) : null,
  };
  const content: InboundContent = d.content ?? { type: d.type, text: d.text ?? null };
  // An edit changes an earlier message: it is no new message to answer with or to start anything.
  if (content.type === 'edit') return null;
  return { place, d, content };
}

/**
 * Course platforms hearing back (docs/course.md): a `message.received` answers the waits of its
 * sender (each posted back as `message.replied`, naming the message it answers); a message that
 * answers none may start a course event through the triggers of the account's course connections
 * (`course.trigger`). Posts join the student's queue in the outbox, signed and in order like status
 * events; both steps are idempotent (an event may come twice).
 */
@Injectable()
export class CourseReplies {
  constructor(
    private readonly replies: CourseRepliesRepository,
    private readonly outbox: CourseOutboxWorker,
    private readonly clock: Clock,
  ) {}

  /** Inbound messages looked up at the same time (a pull's) share one query each way. */
  private readonly ahead = new GroupCommit<Inbound, RepliesAhead>((_, items) => this.lookUpMany(items), LOOKUP_BATCH);

  /**
   * What onEvent will need from the database, read for the inbound messages handed in the same turn
   * together: whether their senders have any wait, and the triggers of the places they came to.
   * Null: not a message onEvent acts on.
   */
  prefetch(event: EventEnvelope): Promise<RepliesAhead | null> {
    const inbound = inboundOf(event);
    return inbound ? this.ahead.submit('inbound', inbound) : Promise.resolve(null);
  }

  /**
   * Answers the sender's waits, or starts what the triggers say; `ahead` (from prefetch, taken
   * before any event of its turn was handled) spares the reads for a sender with no wait at all,
   * and the triggers' read. A sender with a wait is always read again, at its turn.
   */
  async onEvent(event: EventEnvelope, ahead?: Promise<RepliesAhead | null>): Promise<void> {
    const inbound = inboundOf(event);
    if (!inbound) return;
    const { place, d, content } = inbound;
    const known = ahead ? await ahead : null;
    const writtenSeconds = Number.isFinite(d.timestamp) && d.timestamp > 0 ? d.timestamp : event.created_at;
    const reply: CourseReplyContent = {
      type: content.type,
      text: content.text ?? null,
      provider_message_id: d.provider_message_id,
      reply: content.reply
        ? { kind: content.reply.kind, id: content.reply.id, title: content.reply.title, payload: content.reply.payload }
        : null,
    };
    // The sender had no wait when the messages of its turn were read together: nothing to answer.
    const { ended, answeredBefore } =
      known?.waits === false
        ? NO_ANSWER
        : await this.replies.answer(
            place,
            d.from,
            d.provider_message_id,
            // Channel times are whole seconds: a message of the same second as the send still answers it.
            new Date((writtenSeconds + 1) * 1000),
            this.clock.now(),
            (w) => repliedPost(w, reply, writtenSeconds),
          );
    if (ended.length) return this.outbox.poke();
    // A message that answered a wait (this is it again) starts nothing.
    if (!answeredBefore) await this.trigger(place, d, content, writtenSeconds, known?.triggers);
  }

  /** The lookups of many inbound messages: one read of waits, one of triggers per place. */
  private async lookUpMany(items: Inbound[]): Promise<RepliesAhead[]> {
    const placeKey = (p: InboundPlace) => JSON.stringify([p.channel, p.connectionId, p.appId]);
    const places = new Map(items.map((i) => [placeKey(i.place), i.place]));
    const [waiting, triggers] = await Promise.all([
      this.replies.studentsWaiting(items.map((i) => ({ student: i.d.from, channel: i.place.channel }))),
      Promise.all([...places].map(async ([k, p]) => [k, await this.replies.triggersFor(p)] as const)),
    ]);
    const byPlace = new Map(triggers);
    return items.map((i) => ({
      waits: waiting.has(studentKey(i.d.from, i.place.channel)),
      triggers: byPlace.get(placeKey(i.place))!,
    }));
  }

  private async trigger(
    place: InboundPlace,
    d: MessageReceivedData,
    content: InboundContent,
    at: number,
    known?: CourseTriggersRow[],
  ) {
    let queued = false;
    for (const t of known ?? (await this.replies.triggersFor(place))) {
      const hit = triggerOf(t, content);
      if (!hit) continue;
      const body = {
        event: 'course.trigger',
        type: hit.event,
        trigger: hit.keyword === null ? 'message' : 'keyword',
        keyword: hit.keyword,
        channel: place.channel,
        student: d.from,
        message: {
          provider_message_id: d.provider_message_id,
          type: content.type,
          text: content.text ?? null,
          reply: content.reply ? { kind: content.reply.kind, id: content.reply.id, title: content.reply.title } : null,
        },
        at,
      };
      queued =
        (await this.replies.enqueue({
          connectionId: t.connection_id,
          student: d.from,
          key: `${t.connection_id}:${place.channel}:${place.connectionId ?? place.appId}:${d.from}:${d.provider_message_id}`,
          kind: 'trigger',
          body: JSON.stringify(body),
        })) || queued;
    }
    if (queued) this.outbox.poke();
  }
}
