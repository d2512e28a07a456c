import { EventEnvelope, Topology } from '@app/contracts';
import { NatsClients } from '@app/messaging';
import { ConnectionsRepository } from '../connections/connections.repository';
import { ConversationsRecorder } from '../conversations/conversations.recorder';
import { CourseOutboxWorker } from './course-outbox.worker';
import { CourseReplies } from './course-replies';
import { CourseMessageRow, CourseRepository } from './course.repository';
import { CourseStatusConsumer } from './course-status.consumer';

const LINKED = '01a21380-0000-7000-8000-000000000001';
const OTHER = '01a21380-0000-7000-8000-000000000002';
const SENDING_USER = '11111111-1111-4111-8111-111111111111';

function setup() {
  const link: CourseMessageRow = {
    message_id: LINKED,
    connection_id: 'c1',
    course_event_id: 'ce1',
    event_id: 'pay-1',
    student: '79990001122',
  };
  const course = {
    statusLookups: jest.fn(async (ids: string[], users: string[]) => ({
      links: new Map(ids.includes(LINKED) ? [[LINKED, link]] : []),
      sending: new Set(users.filter((u) => u === SENDING_USER)),
    })),
    enqueueStatus: jest.fn().mockResolvedValue(true),
  };
  const connections = { findById: jest.fn().mockResolvedValue({ id: 'c1', state: 'active' }) };
  const outbox = { poke: jest.fn() };
  const consumer = new CourseStatusConsumer(
    {} as NatsClients,
    {} as Topology,
    course as unknown as CourseRepository,
    connections as unknown as ConnectionsRepository,
    outbox as unknown as CourseOutboxWorker,
    { record: jest.fn().mockResolvedValue(undefined) } as unknown as ConversationsRecorder,
    {
      onEvent: jest.fn().mockResolvedValue(undefined),
      prefetch: jest.fn().mockResolvedValue(null),
    } as unknown as CourseReplies,
  );
  return { consumer, course };
}

const status = (messageId: string, userId: string | null = null): EventEnvelope => ({
  id: `evt_${messageId}`,
  type: 'message.delivered',
  created_at: 1_800_000_000,
  channel: 'whatsapp',
  app_id: 1,
  user_id: userId,
  data: { message_id: messageId, status: 'DELIVERED', timestamp: 1_800_000_000 },
});

describe('CourseStatusConsumer', () => {
  it('events handled together are looked up in one query; only the course-made message is queued', async () => {
    const { consumer, course } = setup();
    const outcomes = await Promise.all([consumer.handle(status(LINKED)), consumer.handle(status(OTHER))]);
    expect(outcomes).toEqual([{ action: 'ack' }, { action: 'ack' }]);
    expect(course.statusLookups).toHaveBeenCalledTimes(1);
    expect(course.statusLookups.mock.calls[0][0].sort()).toEqual([LINKED, OTHER].sort());
    expect(course.enqueueStatus).toHaveBeenCalledTimes(1);
    expect(course.enqueueStatus.mock.calls[0][0]).toMatchObject({ messageId: LINKED, status: 'delivered' });
  });

  it('a status with no link yet waits while its tenant has a course event being sent, else is forgotten', async () => {
    const { consumer, course } = setup();
    const [waiting, forgotten] = await Promise.all([
      consumer.handle(status(OTHER, SENDING_USER)),
      consumer.handle(status(OTHER, '22222222-2222-4222-8222-222222222222')),
    ]);
    expect(waiting).toMatchObject({ action: 'retry' });
    expect(forgotten).toEqual({ action: 'ack' });
    expect(course.statusLookups).toHaveBeenCalledTimes(1);
    expect(course.statusLookups.mock.calls[0][1].sort()).toEqual(
      [SENDING_USER, '22222222-2222-4222-8222-222222222222'].sort(),
    );
    expect(course.enqueueStatus).not.toHaveBeenCalled();
  });
});
