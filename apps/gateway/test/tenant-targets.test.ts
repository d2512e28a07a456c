import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createDataSource } from '@app/database';
import { FloodServer, startFloodServer, waitFor } from '@app/testing';
import { startPlatform } from '../../../test/support/platform';
import { AccountsRepository } from '../src/accounts/accounts.repository';
import { ConnectionsRepository } from '../src/connections/connections.repository';
import { CourseRepository } from '../src/course/course.repository';
import { gatewaySchema } from '../src/database/schema';

type Json = Record<string, unknown>;

/** A gateway of the suite, its database, and calls to it with an account token. */
async function gatewayOf(suite: string, env: Record<string, string>) {
  const platform = await startPlatform({
    suite,
    services: ['gateway'],
    env: { COURSE_POLL_INTERVAL_MS: '50', ...env },
  });
  const db = createDataSource(platform.infra.databaseUrl, gatewaySchema, 2);
  await db.initialize();
  const accounts = new AccountsRepository(db);
  const call = async (path: string, token: string, body?: unknown) => {
    const res = await fetch(`${platform.urls.gateway}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as Json & Json[] };
  };
  const newAccount = async () => {
    const created = await accounts.createAccount(`acct-${Math.random()}`, null);
    return { token: created.token, id: created.account.id };
  };
  const stop = async () => {
    await db.destroy();
    await platform.stop();
  };
  return {
    platform,
    db,
    call,
    newAccount,
    stop,
    course: new CourseRepository(db),
    connections: new ConnectionsRepository(db),
  };
}
type Gateway = Awaited<ReturnType<typeof gatewayOf>>;

/** Queues a status event of a message for the connection's platform; the last error of its first post. */
async function postStatus(g: Gateway, connectionId: string, messageId: string): Promise<string> {
  await g.course.enqueueStatus({
    connectionId,
    student: messageId,
    messageId,
    status: 'sent',
    body: '{"event":"message.sent"}',
  });
  return waitFor(
    async () => {
      const [row] = (await g.db.query(`SELECT last_error FROM course_outbox WHERE message_id = $1`, [messageId])) as {
        last_error: string | null;
      }[];
      return row?.last_error ?? false;
    },
    20_000,
    `a post of ${messageId}`,
    50,
  );
}

describe('addresses a tenant chose, with the protection on (ALLOW_PRIVATE_TARGETS unset)', () => {
  let g: Gateway;
  let token: string;
  beforeAll(async () => {
    g = await gatewayOf('gw_targets_strict', {
      ALLOW_PRIVATE_TARGETS: 'false',
      COURSE_MAX_CONNECTIONS_PER_ACCOUNT: '2',
      COURSE_MAX_RULES_PER_ACCOUNT: '3',
      COURSE_MAX_RULES_PER_EVENT_TYPE: '2',
    });
    token = (await g.newAccount()).token;
  });
  afterAll(() => g?.stop());

  it.each([
    ['http://127.0.0.1:8080', /must use https/],
    ['https://127.0.0.1:8443', /private or local/],
    ['https://[::ffff:127.0.0.1]:8443', /private or local/],
    ['https://[::127.0.0.1]', /private or local/],
    ['https://0x7f000001', /private or local/],
    ['https://0.0.0.0', /private or local/],
    ['https://localhost:8443', /private or local/],
    ['https://[::1]', /private or local/],
    ['https://169.254.169.254', /private or local/],
    ['https://user:pw@school.example.com', /must not carry credentials/],
  ])('refuses a course platform at %s with a 400 naming base_url', async (base_url, reason) => {
    const res = await g.call('/v1/connections', token, { channel: 'course', base_url, api_key: 'the-platform-key' });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'base_url', message: expect.stringMatching(reason) }]);
    expect(JSON.stringify((await g.call('/v1/connections', token)).body)).not.toContain('pw@');
  });

  it('refuses a media URL that is an internal IP literal, before anything else', async () => {
    for (const media_url of [
      'https://127.0.0.1:8443/a.mp4',
      'https://[::ffff:127.0.0.1]:8443/a.mp4',
      'https://169.254.169.254/latest/meta-data/',
      'https://[::1]/a.mp4',
    ]) {
      const res = await g.call('/v1/messages', token, { channel: 'max', to: '515151', template: 'promo', media_url });
      expect([media_url, res.status]).toEqual([media_url, 400]);
      expect(res.body.errors).toEqual([{ field: 'media_url', message: expect.stringMatching(/private or local/) }]);
    }
  });

  it('caps course connections per account and rules per account and per event type; every rule is listed', async () => {
    const { token: account, id: accountId } = await g.newAccount();
    const create = () =>
      g.call('/v1/connections', account, {
        channel: 'course',
        base_url: 'https://93.184.215.14',
        api_key: 'k'.repeat(12),
      });
    const first = await create();
    expect(first.status).toBe(201);
    expect((await create()).status).toBe(201);
    const third = await create();
    expect(third).toMatchObject({ status: 409, body: { type: expect.stringMatching(/connection-limit-reached$/) } });

    // A telegram bot to send on (connected as the connections API would store it).
    await g.connections.insert({
      id: '0190a5c0-0000-7000-8000-00000000b0b0',
      accountId,
      channel: 'telegram',
      state: 'active',
      appId: null,
      botId: '777',
      botUsername: 'bot',
      credential: 'sealed',
      inboundSecretHash: null,
      baseUrl: null,
      eventsPath: null,
    });
    const rule = (event_type: string) =>
      g.call('/v1/course/rules', account, {
        connection_id: first.body.id,
        event_type,
        channel: 'telegram',
        template: 'payment_received',
        recipient_field: 'user.chat',
      });
    expect((await rule('payment')).status).toBe(201);
    expect((await rule('payment')).status).toBe(201);
    const fanOut = await rule('payment');
    expect(fanOut).toMatchObject({
      status: 409,
      body: { detail: expect.stringMatching(/at most 2 rules for one event type/) },
    });
    expect((await rule('refund')).status).toBe(201);
    const over = await rule('lesson');
    expect(over).toMatchObject({ status: 409, body: { detail: expect.stringMatching(/at most 3 course rules/) } });
    expect((await g.call('/v1/course/rules', account)).body).toHaveLength(3);

    // Rules stored before the caps existed still fire at most the cap's worth per event.
    for (let i = 0; i < 3; i++) {
      await g.db.query(
        `INSERT INTO course_rules (id, account_id, connection_id, event_type, channel, template, recipient_field, params)
         SELECT gen_random_uuid(), account_id, connection_id, event_type, channel, template, recipient_field, params
         FROM course_rules WHERE connection_id = $1 AND event_type = 'payment' LIMIT 1`,
        [first.body.id],
      );
    }
    expect(await g.course.matchingRules(first.body.id as string, 'payment', 2)).toHaveLength(2);
  });

  it('checks the stored base_url again before every post: a platform now on an internal address is never called', async () => {
    let asked = 0;
    const listener: Server = createServer((_req, res) => {
      asked++;
      res.end('ok');
    });
    await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
    try {
      const { token: account } = await g.newAccount();
      const created = await g.call('/v1/connections', account, {
        channel: 'course',
        base_url: 'https://93.184.215.14',
        api_key: 'the-platform-key',
      });
      expect(created.status).toBe(201);
      const id = created.body.id as string;
      // As if the platform's name resolved elsewhere now, or the row predates the policy.
      const port = (listener.address() as AddressInfo).port;
      const moveTo = (url: string) => g.db.query(`UPDATE connections SET base_url = $2 WHERE id = $1`, [id, url]);
      await moveTo(`http://127.0.0.1:${port}`);
      expect(await postStatus(g, id, 'msg-internal-1')).toMatch(/refused by the target policy: url must use https/);
      await moveTo(`https://127.0.0.1:${port}`);
      expect(await postStatus(g, id, 'msg-internal-2')).toMatch(/refused by the target policy: .*private or local/);
      expect(asked).toBe(0);
    } finally {
      await new Promise((r) => listener.close(r));
    }
  });
});

describe('a course platform answering a status post with 150 MiB', () => {
  let g: Gateway;
  let flood: FloodServer;
  beforeAll(async () => {
    // The listener is on loopback, as in `pnpm stack`.
    g = await gatewayOf('gw_targets_flood', { ALLOW_PRIVATE_TARGETS: 'true' });
    flood = await startFloodServer(150 * 1024 * 1024);
  });
  afterAll(async () => {
    await flood?.close();
    await g?.stop();
  });

  it('reads at most COURSE_ANSWER_LIMIT_BYTES of it and records the post as failed', async () => {
    const { token } = await g.newAccount();
    const created = await g.call('/v1/connections', token, {
      channel: 'course',
      base_url: flood.url,
      api_key: 'the-platform-key',
    });
    expect(created.status).toBe(201);
    expect(await postStatus(g, created.body.id as string, 'msg-flood-1')).toBe(
      "the platform's answer was larger than 65536 bytes",
    );
    await flood.ended();
    expect(flood.sent()).toBeLessThan(16 * 1024 * 1024);
  });
});
