import { InboundContent } from '@app/contracts';
import { CoursePost, CourseTriggersRow, CourseWaitRow } from './course-replies.repository';

/** The student's answer as posted back: its kind, text and, for a button or list reply, what was pressed. */
export interface CourseReplyContent {
  type: string;
  text: string | null;
  provider_message_id: string;
  reply: { kind: string; id: string | null; title: string | null; payload: unknown } | null;
}

/** Keyword comparison: case, surrounding and repeated spaces do not matter. */
export const normalizeKeyword = (s: string) => s.trim().replace(/\s+/g, ' ').toLocaleLowerCase();

const seconds = (d: Date | string) => Math.floor(new Date(d).getTime() / 1000);

/** The wait's post when the student answered (docs/course.md, Waiting for the reply). */
export function repliedPost(w: CourseWaitRow, reply: CourseReplyContent, at: number): CoursePost {
  const body = {
    event: 'message.replied',
    message_id: w.message_id,
    event_id: w.event_id,
    student: w.student,
    status: 'replied',
    reply,
    at,
  };
  return {
    connectionId: w.connection_id,
    student: w.student,
    key: w.message_id,
    kind: 'replied',
    body: JSON.stringify(body),
  };
}

/** The wait's post when it timed out without an answer: `at` is its due time. */
export function noReplyPost(w: CourseWaitRow): CoursePost {
  const body = {
    event: 'message.no_reply',
    message_id: w.message_id,
    event_id: w.event_id,
    student: w.student,
    status: 'no_reply',
    at: seconds(w.due_at),
  };
  return {
    connectionId: w.connection_id,
    student: w.student,
    key: w.message_id,
    kind: 'no_reply',
    body: JSON.stringify(body),
  };
}

/** The event a message starts on a connection with triggers: a keyword's, else `on_message`'s; null for none. */
export function triggerOf(
  t: Pick<CourseTriggersRow, 'keyword_triggers' | 'on_message'>,
  content: Pick<InboundContent, 'text' | 'reply'>,
): { event: string; keyword: string | null } | null {
  const said = [content.text, content.reply?.id, content.reply?.title]
    .filter((s): s is string => typeof s === 'string' && s.trim() !== '')
    .map(normalizeKeyword);
  const hit = t.keyword_triggers.find((k) => said.includes(normalizeKeyword(k.keyword)));
  if (hit) return { event: hit.event, keyword: hit.keyword };
  return t.on_message ? { event: t.on_message, keyword: null } : null;
}
