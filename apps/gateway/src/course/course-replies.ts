import { Injectable } from '@nestjs/common';
import { CONVERSATION_CHANNELS, EventEnvelope, InboundContent, MessageReceivedData } from '@app/contracts';
import { Clock } from '@app/server';
import { CourseOutboxWorker } from './course-outbox.worker';
import { CourseRepliesRepository, InboundPlace } from './course-replies.repository';
import { CourseReplyContent, repliedPost, triggerOf } from './course-reply-posts';

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

  async onEvent(event: EventEnvelope): Promise<void> {
    if (event.type !== 'message.received' || !event.channel || !CONVERSATION_CHANNELS.includes(event.channel)) return;
    const d = event.data as unknown as MessageReceivedData | null;
    if (!d?.from || !d.provider_message_id) return;
    const place: InboundPlace = {
      channel: event.channel,
      connectionId: event.channel === 'whatsapp' ? null : (d.connection_id ?? null),
      appId: event.channel === 'whatsapp' && event.app_id != null ? String(event.app_id) : null,
    };
    const content: InboundContent = d.content ?? { type: d.type, text: d.text ?? null };
    // An edit changes an earlier message: it is no new message to answer with or to start anything.
    if (content.type === 'edit') return;
    const writtenSeconds = Number.isFinite(d.timestamp) && d.timestamp > 0 ? d.timestamp : event.created_at;
    const reply: CourseReplyContent = {
      type: content.type,
      text: content.text ?? null,
      provider_message_id: d.provider_message_id,
      reply: content.reply
        ? { kind: content.reply.kind, id: content.reply.id, title: content.reply.title, payload: content.reply.payload }
        : null,
    };
    const { ended, answeredBefore } = await this.replies.answer(
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
    if (!answeredBefore) await this.trigger(place, d, content, writtenSeconds);
  }

  private async trigger(place: InboundPlace, d: MessageReceivedData, content: InboundContent, at: number) {
    let queued = false;
    for (const t of await this.replies.triggersFor(place)) {
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
