import { EventEnvelope } from '@app/contracts';
import { Clock } from '@app/server';
import { CourseOutboxWorker } from './course-outbox.worker';
import { CourseReplies } from './course-replies';
import { CourseRepliesRepository, CourseTriggersRow, studentKey } from './course-replies.repository';

const CONNECTION = '01a21380-0000-7000-8000-00000000000c';

const triggers: CourseTriggersRow = {
  connection_id: CONNECTION,
  account_id: 'a1',
  keyword_triggers: [{ keyword: 'start', event: 'welcome' }],
  on_message: null,
  updated_at: new Date(0),
};

function setup(waiting: string[]) {
  const repo = {
    studentsWaiting: jest.fn(async () => new Set(waiting.map((s) => studentKey(s, 'telegram')))),
    triggersFor: jest.fn().mockResolvedValue([triggers]),
    answer: jest.fn().mockResolvedValue({ ended: [], answeredBefore: false }),
    enqueue: jest.fn().mockResolvedValue(true),
  };
  const outbox = { poke: jest.fn() };
  const replies = new CourseReplies(
    repo as unknown as CourseRepliesRepository,
    outbox as unknown as CourseOutboxWorker,
    { now: () => new Date(1_800_000_000_000) } as Clock,
  );
  return { replies, repo };
}

const inbound = (from: string, text: string, n: number): EventEnvelope => ({
  id: `evt_${n}`,
  type: 'message.received',
  created_at: 1_800_000_000,
  channel: 'telegram',
  app_id: null,
  user_id: null,
  data: { from, provider_message_id: `${from}:${n}`, connection_id: CONNECTION, type: 'text', text, timestamp: 0 },
});

describe('CourseReplies', () => {
  it('messages handled together are read in one query; only a sender with a wait is read again', async () => {
    const { replies, repo } = setup(['100']);
    const events = [inbound('100', 'hi', 1), inbound('200', 'start', 2), inbound('300', 'hello', 3)];
    const ahead = events.map((e) => replies.prefetch(e));
    for (const [i, e] of events.entries()) await replies.onEvent(e, ahead[i]);
    expect(repo.studentsWaiting).toHaveBeenCalledTimes(1);
    expect(repo.triggersFor).toHaveBeenCalledTimes(1);
    expect(repo.answer).toHaveBeenCalledTimes(1);
    expect(repo.answer.mock.calls[0][1]).toBe('100');
    // The keyword still starts its course event, from the triggers read ahead.
    expect(repo.enqueue).toHaveBeenCalledTimes(1);
    expect(repo.enqueue.mock.calls[0][0]).toMatchObject({ student: '200', kind: 'trigger' });
  });

  it('without a read ahead, each message is read at its turn', async () => {
    const { replies, repo } = setup([]);
    await replies.onEvent(inbound('200', 'start', 1));
    expect(repo.studentsWaiting).not.toHaveBeenCalled();
    expect(repo.answer).toHaveBeenCalledTimes(1);
    expect(repo.enqueue).toHaveBeenCalledTimes(1);
  });

  it('a status event is nothing to read ahead', async () => {
    const { replies, repo } = setup([]);
    const status = { ...inbound('200', 'x', 1), type: 'message.delivered' } as EventEnvelope;
    await expect(replies.prefetch(status)).resolves.toBeNull();
    expect(repo.studentsWaiting).not.toHaveBeenCalled();
  });
});
