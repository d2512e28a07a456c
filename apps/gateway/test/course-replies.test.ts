import { DataSource } from 'typeorm';
import { Clock } from '@app/server';
import { waitFor } from '@app/testing';
import { GatewayCall } from '../../../test/support/campaigns';
import { startCourseSchool } from '../../../test/support/course-school';
import { ApiFactory } from '../../../test/support/factories';
import { Platform } from '../../../test/support/platform';
import { sandboxControl } from '../../../test/support/sandbox';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * Course platforms hearing back through the real services: a rule that waits for the reply posts
 * the student's answer (or `no_reply` at the timeout, once) back to the platform, signed and naming
 * the message it answers; a keyword on the connection starts a course event on the platform.
 */
describe('course platforms hearing back: waiting for replies, triggers', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let gatewayDb: DataSource;
  let app: Awaited<ReturnType<ApiFactory['activeApp']>>;
  let call: GatewayCall;
  let course: { id: string; base_url: string };
  let connection: Json;
  const API_KEY = 'course-api-key-0002';

  const sandbox = async (path: string, body?: unknown) =>
    (await sandboxControl<Json>(platform.urls.sandbox, path, body)).body;
  const fire = (event: Json) =>
    sandbox(`course/platforms/${course.id}/fire`, {
      url: connection.inbound_url,
      secret: connection.secret,
      format: 'json',
      event,
    });
  const studentWrites = (from: string, body: Json) =>
    sandbox('whatsapp/inbound', { phone_number_id: app.phoneNumberId, from, ...body });
  /** The posts the platform received for a student, oldest first. */
  const posted = async (student: string) =>
    ((await sandbox(`course/platforms/${course.id}/events`)) as unknown as Json[]).filter(
      (e) => e.body?.student === student,
    );
  const postedEvent = (student: string, event: string) =>
    waitFor(
      async () => (await posted(student)).find((e) => e.body.event === event) ?? false,
      30_000,
      `${event} for ${student}`,
      100,
    );
  /** The message the course event sent, once it was sent. */
  const sentFor = (eventId: string) =>
    waitFor(
      async () => {
        const res = await call('GET', `/v1/course/events?connection_id=${connection.id}`);
        const found = (res.body.data as Json[]).find((e) => e.event_id === eventId && e.status !== 'received');
        return found ?? false;
      },
      30_000,
      `course event ${eventId} processed`,
      100,
    ).then((found) => {
      expect(found).toMatchObject({ status: 'processed', reason: null });
      return found.message_ids[0] as string;
    });
  const rule = (eventType: string, wait?: unknown) =>
    call('POST', '/v1/course/rules', {
      connection_id: connection.id,
      event_type: eventType,
      channel: 'whatsapp',
      template: 'lesson_question',
      recipient_field: 'user.phone',
      params: ['user.first_name'],
      ...(wait === undefined ? {} : { wait_for_reply: wait }),
    });

  beforeAll(async () => {
    ({ platform, factory, gatewayDb, app, call } = await startCourseSchool({
      suite: 'gw-course-replies',
      statusDelayMs: 50,
      template: { name: 'lesson_question', body: 'Hi {{1}}, did the lesson make sense?' },
    }));
    course = (await sandbox('course/platforms', { api_key: API_KEY })) as typeof course;
    const created = await call('POST', '/v1/connections', {
      channel: 'course',
      base_url: course.base_url,
      api_key: API_KEY,
    });
    expect(created.status).toBe(201);
    connection = created.body;
  });

  afterAll(async () => {
    jest.restoreAllMocks();
    await gatewayDb?.destroy();
    await factory?.close();
    await platform?.stop();
  });

  it('a rule takes wait_for_reply: a bad timeout is a 400 naming the field, a good one is shown back', async () => {
    for (const wait of [{ timeout_seconds: 0 }, { timeout_seconds: 1.5 }, { timeout_seconds: 8 * 86400 }]) {
      const bad = await rule('lesson_done', wait);
      expect(bad.status).toBe(400);
      expect((bad.body.errors as Json[]).map((e) => e.field)).toEqual(['wait_for_reply.timeout_seconds']);
    }
    const notObject = await rule('lesson_done', 60);
    expect(notObject.status).toBe(400);
    expect((notObject.body.errors as Json[]).map((e) => e.field)).toContain('wait_for_reply');

    const good = await rule('lesson_done', { timeout_seconds: 3600 });
    expect(good.status).toBe(201);
    expect(good.body.wait_for_reply).toEqual({ timeout_seconds: 3600 });
    const listed = (await call('GET', '/v1/course/rules')).body as Json[];
    expect(listed.find((r) => r.id === good.body.id)?.wait_for_reply).toEqual({ timeout_seconds: 3600 });
  });

  it("the student's reply is posted back, signed, naming the message it answers", async () => {
    const student = '79990008101';
    await fire({ id: 'done-1', type: 'lesson_done', user: { phone: student, first_name: 'Ana' } });
    const messageId = await sentFor('done-1');
    await postedEvent(student, 'message.sent');

    await studentWrites(student, { kind: 'button_reply', text: 'Yes, all clear' });
    const reply = await postedEvent(student, 'message.replied');
    expect(reply.signature_valid).toBe(true);
    expect(reply.body).toMatchObject({
      event: 'message.replied',
      status: 'replied',
      message_id: messageId,
      event_id: 'done-1',
      student,
      reply: { type: 'reply', text: 'Yes, all clear', reply: { kind: 'button', title: 'Yes, all clear' } },
    });
    expect(reply.body.reply.provider_message_id).toMatch(/^wamid\./);
    expect(Number.isInteger(reply.body.at)).toBe(true);

    // The wait is over: the next message answers nothing more.
    await studentWrites(student, { text: 'one more thing' });
    const [{ n }] = (await gatewayDb.query(
      `SELECT count(*)::int AS n FROM course_outbox WHERE message_id = $1 AND status = 'replied'`,
      [messageId],
    )) as { n: number }[];
    expect(n).toBe(1);
  });

  it('with no reply, no_reply is posted once at the timeout (a moved clock)', async () => {
    const created = await rule('lesson_quiz', { timeout_seconds: 600 });
    expect(created.status).toBe(201);
    const student = '79990008102';
    await fire({ id: 'quiz-1', type: 'lesson_quiz', user: { phone: student, first_name: 'Bo' } });
    const messageId = await sentFor('quiz-1');
    await postedEvent(student, 'message.sent');
    const [wait] = (await gatewayDb.query(`SELECT state, due_at FROM course_waits WHERE message_id = $1`, [
      messageId,
    ])) as { state: string; due_at: Date }[];
    expect(wait.state).toBe('waiting');

    // Eleven minutes later, for every gateway timer that reads the clock.
    const now = Date.now();
    const spy = jest.spyOn(Clock.prototype, 'nowMs').mockImplementation(() => Date.now() + 11 * 60_000);
    try {
      const noReply = await postedEvent(student, 'message.no_reply');
      expect(noReply.signature_valid).toBe(true);
      expect(noReply.body).toEqual({
        event: 'message.no_reply',
        status: 'no_reply',
        message_id: messageId,
        event_id: 'quiz-1',
        student,
        at: Math.floor(new Date(wait.due_at).getTime() / 1000),
      });
      expect(noReply.body.at).toBeGreaterThanOrEqual(Math.floor(now / 1000) + 590);
      // A reply after the timeout answers nothing: the wait is over.
      await studentWrites(student, { text: 'sorry, late' });
      await waitFor(
        async () => {
          const [row] = (await gatewayDb.query(
            `SELECT count(*) FILTER (WHERE state = 'pending')::int AS pending FROM course_outbox WHERE student = $1`,
            [student],
          )) as { pending: number }[];
          return row.pending === 0;
        },
        30_000,
        'the student queue drained',
        100,
      );
    } finally {
      spy.mockRestore();
    }
    const got = (await posted(student)).map((e) => e.body.event);
    expect(got.filter((e) => e === 'message.no_reply')).toHaveLength(1);
    expect(got).not.toContain('message.replied');
    const [{ state }] = (await gatewayDb.query(`SELECT state FROM course_waits WHERE message_id = $1`, [
      messageId,
    ])) as { state: string }[];
    expect(state).toBe('no_reply');
  });

  it('a keyword configured on the connection starts a course event on the platform; on_message any other', async () => {
    const bad = await call('PUT', `/v1/course/connections/${connection.id}/triggers`, {
      keyword_triggers: [{ keyword: '', event: 'x' }],
      on_message: 7,
    });
    expect(bad.status).toBe(400);
    expect([...new Set((bad.body.errors as Json[]).map((e) => e.field))].sort()).toEqual([
      'keyword_triggers.0.keyword',
      'on_message',
    ]);
    const unknownConnection = '/v1/course/connections/00000000-0000-4000-8000-000000000000/triggers';
    expect((await call('GET', unknownConnection)).status).toBe(404);

    expect((await call('GET', `/v1/course/connections/${connection.id}/triggers`)).body).toMatchObject({
      keyword_triggers: [],
      on_message: null,
      updated_at: null,
    });
    const set = await call('PUT', `/v1/course/connections/${connection.id}/triggers`, {
      keyword_triggers: [{ keyword: 'START', event: 'course_start' }],
      on_message: 'student_message',
    });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({
      connection_id: connection.id,
      keyword_triggers: [{ keyword: 'START', event: 'course_start' }],
      on_message: 'student_message',
    });
    expect(Number.isInteger(set.body.updated_at)).toBe(true);

    const student = '79990008103';
    const wrote = await studentWrites(student, { text: '  start ' });
    const started = await postedEvent(student, 'course.trigger');
    expect(started.signature_valid).toBe(true);
    expect(started.body).toMatchObject({
      event: 'course.trigger',
      type: 'course_start',
      trigger: 'keyword',
      keyword: 'START',
      channel: 'whatsapp',
      student,
      message: { provider_message_id: wrote.id, type: 'text', text: '  start ' },
    });

    await studentWrites(student, { text: 'where is lesson 2?' });
    const other = await waitFor(
      async () => (await posted(student)).find((e) => e.body.type === 'student_message') ?? false,
      30_000,
      'the on_message event',
      100,
    );
    expect(other.body).toMatchObject({ trigger: 'message', keyword: null, message: { text: 'where is lesson 2?' } });
    // The same message delivered again by the channel starts nothing more (events are handled in order:
    // once a later message's event is posted, the repeat was handled).
    await studentWrites(student, { text: '  start ', message_id: wrote.id });
    await studentWrites(student, { text: 'last one' });
    await waitFor(
      async () => (await posted(student)).some((e) => e.body.message?.text === 'last one'),
      30_000,
      'the last message posted',
      100,
    );
    const events = (await posted(student)).map((e) => `${e.body.type}:${e.body.message.text}`);
    expect(events).toEqual(['course_start:  start ', 'student_message:where is lesson 2?', 'student_message:last one']);

    // A message that answers a wait is a reply, not a trigger, even delivered again.
    await fire({ id: 'done-3', type: 'lesson_done', user: { phone: student, first_name: 'Cy' } });
    const messageId = await sentFor('done-3');
    await postedEvent(student, 'message.sent');
    const answer = await studentWrites(student, { text: 'got it' });
    expect((await postedEvent(student, 'message.replied')).body).toMatchObject({
      message_id: messageId,
      reply: { text: 'got it' },
    });
    await studentWrites(student, { text: 'got it', message_id: answer.id });
    await studentWrites(student, { text: 'after the reply' });
    await waitFor(
      async () => (await posted(student)).some((e) => e.body.message?.text === 'after the reply'),
      30_000,
      'the message after the reply posted',
      100,
    );
    const triggered = (await posted(student)).filter((e) => e.body.event === 'course.trigger');
    expect(triggered.map((e) => e.body.message.text)).toEqual([
      '  start ',
      'where is lesson 2?',
      'last one',
      'after the reply',
    ]);
  });
});
