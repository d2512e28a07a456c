import { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { createDataSource, migrateSchema } from '@app/database';
import { startTestInfra, TestInfra } from '@app/testing';
import { AccountsRepository } from '../src/accounts/accounts.repository';
import { CourseRepository } from '../src/course/course.repository';
import { gatewaySchema } from '../src/database/schema';

/**
 * The course consumer's one statement per group of status events, against PostgreSQL: a message's
 * link, and whether its tenant has a course event being sent while the link is not written yet.
 */
describe('course status lookups', () => {
  let infra: TestInfra;
  let ds: DataSource;
  let course: CourseRepository;
  let accounts: AccountsRepository;

  beforeAll(async () => {
    infra = await startTestInfra({ suite: 'course-status-lookups', nats: false });
    await migrateSchema(infra.databaseUrl, gatewaySchema);
    ds = createDataSource(infra.databaseUrl, gatewaySchema, 2);
    await ds.initialize();
    course = new CourseRepository(ds);
    accounts = new AccountsRepository(ds);
  });

  afterAll(async () => {
    if (ds?.isInitialized) await ds.destroy();
    await infra?.stop();
  });

  /** An account billed to a user of its own, with a course connection. */
  async function tenant(): Promise<{ userId: string; accountId: string; connectionId: string }> {
    const userId = uuidv7();
    const { account } = await accounts.createAccount(`course ${userId}`, userId);
    const connectionId = uuidv7();
    await ds.query(
      `INSERT INTO connections (id, account_id, channel, state, base_url, events_path)
       VALUES ($1, $2, 'course', 'active', 'https://school.example', '/events')`,
      [connectionId, account.id],
    );
    return { userId, accountId: account.id, connectionId };
  }

  it('says which messages are linked and which tenants have a course event being sent, in one answer', async () => {
    const sending = await tenant();
    const idle = await tenant();
    const { row: event } = await course.insertEvent({
      connectionId: sending.connectionId,
      accountId: sending.accountId,
      eventKey: 'pay-1',
      type: 'payment',
      body: { phone: '79990001122' },
    });
    const messageId = uuidv7();
    const other = uuidv7();

    // Stored but not taken yet: no send of it can have been made.
    let found = await course.statusLookups([messageId, other], [sending.userId, idle.userId]);
    expect(found.links.size).toBe(0);
    expect([...found.sending]).toEqual([]);

    // Taken: its send may be accepted (and its statuses come) before the link is written.
    expect((await course.claimDueEvents(10, 60_000)).map((e) => e.id)).toEqual([event.id]);
    found = await course.statusLookups([messageId, other], [sending.userId, idle.userId]);
    expect(found.links.size).toBe(0);
    expect([...found.sending]).toEqual([sending.userId]);

    // Linked, then finished: the link answers, the tenant sends nothing any more.
    await course.recordMessage({
      message_id: messageId,
      connection_id: sending.connectionId,
      course_event_id: event.id,
      event_id: event.event_key,
      student: '79990001122',
    });
    await course.finishEvent(event.id, 'processed', null, [messageId]);
    found = await course.statusLookups([messageId, other, messageId], [sending.userId, idle.userId]);
    expect([...found.links.keys()]).toEqual([messageId]);
    expect(found.links.get(messageId)).toEqual({
      message_id: messageId,
      connection_id: sending.connectionId,
      course_event_id: event.id,
      event_id: 'pay-1',
      student: '79990001122',
    });
    expect([...found.sending]).toEqual([]);

    // Nothing to look up: empty answers.
    expect(await course.statusLookups([], [])).toEqual({ links: new Map(), sending: new Set() });
  });
});
