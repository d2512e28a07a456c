import { waitFor } from '@app/testing';
import { DataSource } from 'typeorm';
import { AccountsRepository } from '../../apps/gateway/src/accounts/accounts.repository';
import { startCourseSchool } from '../support/course-school';
import { ApiFactory, TestUser } from '../support/factories';
import { Platform } from '../support/platform';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * A course platform connected to an account: its process callbacks (fired by the sandbox's
 * emulated platform) become template sends through the account's WhatsApp, and what happens to
 * those messages is posted back to the platform, signed, once each and in order per student.
 */
describe('course platform: events in, rules into sends, statuses back out', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let gatewayDb: DataSource;
  let user: TestUser;
  let app: Awaited<ReturnType<ApiFactory['activeApp']>>;
  let token: string;
  let course: { id: string; base_url: string };
  let connection: Json;
  const API_KEY = 'course-api-key-0001';

  const call = async (path: string, init: { method?: string; token?: string; body?: unknown } = {}) => {
    const res = await fetch(`${platform.urls.gateway}${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: {
        ...(init.token ? { Authorization: `Bearer ${init.token}` } : {}),
        ...(init.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
      },
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : null) as Json };
  };
  const sandbox = async (path: string, body?: unknown, method?: string) => {
    const res = await fetch(`${platform.urls.sandbox}/_sandbox/${path}`, {
      method: method ?? (body === undefined ? 'GET' : 'POST'),
      ...(body !== undefined ? { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return (text ? JSON.parse(text) : null) as Json;
  };
  const fire = (
    event: Json,
    opts: { format?: 'json' | 'form'; secret?: string; secret_in?: 'header' | 'query' } = {},
  ) =>
    sandbox(`course/platforms/${course.id}/fire`, {
      url: connection.inbound_url,
      secret: opts.secret ?? connection.secret,
      secret_in: opts.secret_in ?? 'header',
      format: opts.format ?? 'json',
      event,
    });
  const courseEvent = (eventId: string, status?: string) =>
    waitFor(
      async () => {
        const res = await call(`/v1/course/events?connection_id=${connection.id}`, { token });
        const found = (res.body.data as Json[]).find((e) => e.event_id === eventId);
        return found && (status === undefined || found.status === status) ? found : false;
      },
      30_000,
      `course event ${eventId} ${status ?? ''}`,
      100,
    );
  const received = async (student: string, include?: 'all') =>
    ((await sandbox(`course/platforms/${course.id}/events${include ? '?include=all' : ''}`)) as Json[]).filter(
      (e) => e.body?.student === student,
    );
  const waSends = async (to: string) =>
    (await sandbox(`whatsapp/messages?phone_number_id=${app.phoneNumberId}&to=${to}`)) as unknown as Json[];
  const statusesPostedFor = (student: string, n: number) =>
    waitFor(
      async () => {
        const got = await received(student);
        return got.length >= n ? got : false;
      },
      30_000,
      `${n} status events for ${student}`,
      100,
    );

  beforeAll(async () => {
    ({ platform, factory, gatewayDb, user, app, token } = await startCourseSchool({
      suite: 'course-platform',
      statusDelayMs: 200,
      template: { name: 'payment_received', body: 'Hi {{1}}, we received your payment of {{2}}.' },
    }));
    course = (await sandbox('course/platforms', { api_key: API_KEY })) as typeof course;
  });

  afterAll(async () => {
    await gatewayDb?.destroy();
    await factory?.close();
    await platform?.stop();
  });

  it('connects a course platform: its inbound URL and secret shown once, the api key never', async () => {
    const bad = await call('/v1/connections', {
      token,
      body: { channel: 'course', base_url: 'ftp://x', api_key: 'k' },
    });
    expect(bad.status).toBe(400);
    expect((bad.body.errors as Json[]).map((e) => e.field).sort()).toEqual(['api_key', 'base_url']);

    const res = await call('/v1/connections', {
      token,
      body: { channel: 'course', base_url: course.base_url, api_key: API_KEY },
    });
    expect(res.status).toBe(201);
    connection = res.body;
    expect(connection).toMatchObject({
      channel: 'course',
      state: 'active',
      base_url: course.base_url,
      events_path: '/messaging/events',
      inbound_url: `${platform.urls.gateway}/v1/course/events/${connection.id}`,
      secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    expect(JSON.stringify(connection)).not.toContain(API_KEY);
    const shown = await call(`/v1/connections/${connection.id}`, { token });
    expect(shown.body.secret).toBeUndefined();
    expect(JSON.stringify(shown.body)).not.toContain(API_KEY);
    const [stored] = (await gatewayDb.query(`SELECT credential FROM connections WHERE id = $1`, [connection.id])) as {
      credential: string;
    }[];
    expect(stored.credential).not.toContain(API_KEY);
  });

  it('takes rules for connected channels only, lists and deletes them', async () => {
    const rule = {
      connection_id: connection.id,
      event_type: 'payment',
      channel: 'whatsapp',
      template: 'payment_received',
      recipient_field: 'user.phone',
      params: ['user.first_name', 'deal.cost'],
    };
    const created = await call('/v1/course/rules', { token, body: rule });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ ...rule, id: expect.any(String), language: null });

    const telegram = await call('/v1/course/rules', { token, body: { ...rule, channel: 'telegram' } });
    expect(telegram.status).toBe(422);
    expect(telegram.body.type).toBe('/problems/not-connected');
    const badPath = await call('/v1/course/rules', { token, body: { ...rule, params: ['user..x'] } });
    expect(badPath.status).toBe(400);

    // A rule whose template the api does not have: its sends are refused (see below).
    expect(
      (await call('/v1/course/rules', { token, body: { ...rule, event_type: 'refund', template: 'no_such_template' } }))
        .status,
    ).toBe(201);

    const other = (await new AccountsRepository(gatewayDb).createAccount('other', user.userId)).token;
    const extra = await call('/v1/course/rules', { token, body: { ...rule, event_type: 'extra' } });
    expect((await call(`/v1/course/rules/${extra.body.id}`, { method: 'DELETE', token: other })).status).toBe(403);
    expect((await call(`/v1/course/rules/${extra.body.id}`, { method: 'DELETE', token })).status).toBe(204);
    expect((await call(`/v1/course/rules/${extra.body.id}`, { method: 'DELETE', token })).status).toBe(404);
    const listed = await call('/v1/course/rules', { token });
    expect((listed.body as unknown as Json[]).map((r) => r.event_type).sort()).toEqual(['payment', 'refund']);
    expect((await call('/v1/course/rules', { token: other, body: rule })).status).toBe(403);
  });

  it('a form-encoded payment event becomes one WhatsApp message; sent, delivered and read are posted back in order, signed', async () => {
    const event = {
      id: 'pay-1',
      type: 'payment',
      user: { phone: '+55 11 98765-4321', first_name: 'Ana' },
      deal: { cost: '1500' },
    };
    // The secret is taken from the header only: in the query string it would end up in access logs.
    const inQuery = await fire(event, { format: 'form', secret_in: 'query' });
    expect(inQuery).toMatchObject({ status: 401, body: { type: expect.stringMatching(/invalid-secret$/) } });
    const fired = await fire(event, { format: 'form' });
    expect(fired.status).toBe(202);
    expect(fired.body).toMatchObject({ event_id: 'pay-1', type: 'payment', status: 'received', duplicate: false });

    const done = await courseEvent('pay-1', 'processed');
    expect(done).toMatchObject({ type: 'payment', reason: null, message_ids: [expect.any(String)] });
    expect(done.body).toBeUndefined();
    const [messageId] = done.message_ids as string[];

    const [sent] = await waSends('5511987654321');
    expect(sent.body.template.name).toBe('payment_received');
    expect(JSON.stringify(sent.body.template.components)).toContain('Ana');
    expect(JSON.stringify(sent.body.template.components)).toContain('1500');

    const posted = await statusesPostedFor('5511987654321', 3);
    expect(posted.map((e) => e.body.status)).toEqual(['sent', 'delivered', 'read']);
    for (const e of posted) {
      expect(e.path).toBe('/messaging/events');
      expect(e.signature_valid).toBe(true);
      expect(e.signature).toMatch(/^sha256=[0-9a-f]{64}$/);
      expect(e.body).toEqual({
        event: `message.${e.body.status}`,
        message_id: messageId,
        event_id: 'pay-1',
        student: '5511987654321',
        status: e.body.status,
        at: expect.any(Number),
      });
      // Unix seconds, as every time the gateway sends.
      expect(Number.isInteger(e.body.at)).toBe(true);
      expect(Math.abs((e.body.at as number) - Date.now() / 1000)).toBeLessThan(300);
    }
  });

  it('the same event twice is one event and one message, whether it has an id or not', async () => {
    const again = await fire(
      { id: 'pay-1', type: 'payment', user: { phone: '+55 11 98765-4321', first_name: 'Ana' }, deal: { cost: '1500' } },
      { format: 'form' },
    );
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ event_id: 'pay-1', duplicate: true, status: 'processed' });

    const noId = { type: 'payment', user: { phone: '5511911112222', first_name: 'Bo' }, deal: { cost: 9 } };
    const first = await fire(noId);
    const second = await fire({
      deal: { cost: 9 },
      user: { first_name: 'Bo', phone: '5511911112222' },
      type: 'payment',
    });
    expect(first.status).toBe(202);
    expect(second.status).toBe(200);
    expect(second.body.event_id).toBe(first.body.event_id);
    expect(first.body.event_id).toMatch(/^sha256:[0-9a-f]{64}$/);
    await courseEvent(first.body.event_id, 'processed');
    // The channel reports this number's read before its delivered: the late delivered is never posted after read.
    const posted = await statusesPostedFor('5511911112222', 2);
    expect(posted.map((e) => e.body.status)).toEqual(['sent', 'read']);

    const events = (await call(`/v1/course/events?connection_id=${connection.id}`, { token })).body.data as Json[];
    expect(events.filter((e) => e.event_id === 'pay-1')).toHaveLength(1);
    expect(events.filter((e) => e.event_id === first.body.event_id)).toHaveLength(1);
    expect(await waSends('5511987654321')).toHaveLength(1);
    expect(await waSends('5511911112222')).toHaveLength(1);
  });

  it('an event missing a field is rule_failed with the field named; nothing is sent', async () => {
    await fire({ id: 'pay-missing', type: 'payment', user: { phone: '5511933334444' }, deal: { cost: '10' } });
    const failed = await courseEvent('pay-missing', 'rule_failed');
    expect(failed.reason).toContain('user.first_name');
    expect(failed.message_ids).toEqual([]);
    expect(await waSends('5511933334444')).toHaveLength(0);
  });

  it('a send the api refuses is rule_failed with its detail; an event no rule matches is ignored', async () => {
    await fire({
      id: 'refund-1',
      type: 'refund',
      user: { phone: '5511955556666', first_name: 'C' },
      deal: { cost: 1 },
    });
    const refused = await courseEvent('refund-1', 'rule_failed');
    expect(refused.reason).toMatch(/no_such_template|template/i);
    await fire({ id: 'lesson-1', event: 'lesson_started', user: { phone: '5511955556666' } });
    const ignored = await courseEvent('lesson-1', 'ignored');
    expect(ignored.reason).toContain('lesson_started');
    expect(await waSends('5511955556666')).toHaveLength(0);
  });

  it('a wrong or missing secret is 401 and nothing is stored; a body over 64 KiB is 413', async () => {
    const before = (await gatewayDb.query(`SELECT count(*)::int AS n FROM course_events`)) as { n: number }[];
    const wrong = await fire({ id: 'evil-1', type: 'payment' }, { secret: 'not-the-secret' });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toMatchObject({ type: '/problems/invalid-secret', status: 401 });
    const missing = await fetch(connection.inbound_url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ id: 'evil-2', type: 'payment' }),
    });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('content-type')).toContain('application/problem+json');
    const big = await fetch(connection.inbound_url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Course-Secret': connection.secret },
      body: JSON.stringify({ type: 'payment', pad: 'x'.repeat(70 * 1024) }),
    });
    expect(big.status).toBe(413);
    const after = (await gatewayDb.query(`SELECT count(*)::int AS n FROM course_events`)) as { n: number }[];
    expect(after[0].n).toBe(before[0].n);
  });

  it('a receiver failing 3 times still gets each status event once, in order', async () => {
    await sandbox(`course/platforms/${course.id}/faults`, { mode: '500', count: 3 });
    await fire({ id: 'pay-3', type: 'payment', user: { phone: '5511977778888', first_name: 'D' }, deal: { cost: 3 } });
    await courseEvent('pay-3', 'processed');
    const posted = await statusesPostedFor('5511977778888', 3);
    expect(posted.map((e) => e.body.status)).toEqual(['sent', 'delivered', 'read']);
    expect(posted.every((e) => e.signature_valid)).toBe(true);
    const all = await received('5511977778888', 'all');
    expect(all.filter((e) => e.outcome === 'fault')).toHaveLength(3);
    // Every attempt, failed or not, was in order: no later status before an earlier one was accepted.
    const firstAccepted = all.findIndex((e) => e.outcome === 'accepted');
    expect(all.slice(0, firstAccepted).every((e) => e.body.status === 'sent')).toBe(true);
  });

  it('an event received while the api is down is sent once the api is back', async () => {
    await platform.stopService('api');
    try {
      const fired = await fire({
        id: 'pay-outage',
        type: 'payment',
        user: { phone: '5511999990000', first_name: 'E' },
        deal: { cost: 5 },
      });
      expect(fired.status).toBe(202);
      const waiting = await courseEvent('pay-outage');
      expect(waiting.status).toBe('received');
    } finally {
      await platform.startService('api');
    }
    const done = await courseEvent('pay-outage', 'processed');
    expect(done.message_ids).toHaveLength(1);
    expect(await waSends('5511999990000')).toHaveLength(1);
  });
});
