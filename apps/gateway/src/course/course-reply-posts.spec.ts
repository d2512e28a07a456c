import { noReplyPost, normalizeKeyword, repliedPost, triggerOf } from './course-reply-posts';
import { CourseWaitRow } from './course-replies.repository';

const wait: CourseWaitRow = {
  message_id: '01a21380-0000-7000-8000-000000000001',
  account_id: 'a1',
  connection_id: 'c1',
  channel: 'whatsapp',
  student: '79990001122',
  event_id: 'pay-1',
  state: 'waiting',
  due_at: new Date(1_800_000_600_000),
  created_at: new Date(1_800_000_000_000),
};

describe('course reply posts', () => {
  it('a reply names the message it answers; no_reply is at the due time; each queued once per message', () => {
    const reply = { type: 'text', text: 'yes', provider_message_id: 'wamid.1', reply: null };
    const replied = repliedPost(wait, reply, 1_800_000_100);
    expect(replied).toMatchObject({
      connectionId: 'c1',
      student: '79990001122',
      key: wait.message_id,
      kind: 'replied',
    });
    expect(JSON.parse(replied.body)).toEqual({
      event: 'message.replied',
      message_id: wait.message_id,
      event_id: 'pay-1',
      student: '79990001122',
      status: 'replied',
      reply,
      at: 1_800_000_100,
    });
    const none = noReplyPost(wait);
    expect(none).toMatchObject({ key: wait.message_id, kind: 'no_reply' });
    expect(JSON.parse(none.body)).toMatchObject({ event: 'message.no_reply', status: 'no_reply', at: 1_800_000_600 });
  });

  it('a keyword matches the whole text or a button, ignoring case and spaces; else on_message', () => {
    const t = { keyword_triggers: [{ keyword: 'Start  Course', event: 'start' }], on_message: null };
    expect(normalizeKeyword('  START   course ')).toBe('start course');
    expect(triggerOf(t, { text: ' start course ' })).toEqual({ event: 'start', keyword: 'Start  Course' });
    expect(
      triggerOf(t, {
        text: null,
        reply: { kind: 'button', id: 'start course', title: 'Go', payload: null, context_message_id: null },
      }),
    ).toEqual({ event: 'start', keyword: 'Start  Course' });
    expect(triggerOf(t, { text: 'start the course' })).toBeNull();
    expect(triggerOf({ ...t, on_message: 'any' }, { text: 'hello' })).toEqual({ event: 'any', keyword: null });
  });
});
