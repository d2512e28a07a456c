import { connect, createServer, Socket } from 'node:net';
import { waitFor } from '@app/testing';
import { ApiFactory, TestUser } from '../../../test/support/factories';
import { Platform, startPlatform } from '../../../test/support/platform';
import { client, errorFields, expectProblem, HttpResult } from './support/http';
import { minimalTemplate, textTemplate } from './support/templates';

/** Sends bytes as they are (fetch refuses malformed requests) and returns the status, content type and body. */
function rawRequest(url: string, request: string): Promise<{ status: number; contentType: string; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(Buffer.from(request, 'latin1')));
    let data = '';
    socket.on('data', (d: Buffer) => (data += d.toString('utf8')));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head, ...rest] = data.split('\r\n\r\n');
      resolve({
        status: Number(head.split(' ')[1]),
        contentType: /content-type: *([^\r\n]+)/i.exec(head)?.[1] ?? '',
        body: rest.join('\r\n\r\n'),
      });
    });
  });
}

/** Framework-level errors on the api's routes: each its own 4xx problem, never a 500. */
describe('api errors are RFC 9457 problems', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let sys: TestUser;
  let call: ReturnType<typeof client>;

  beforeAll(async () => {
    platform = await startPlatform({
      suite: 'api-errors',
      services: ['api', 'gateway', 'sandbox', 'webhooks'],
      env: { TEMPLATE_SYNC_INTERVAL_MS: '0' },
    });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    sys = await factory.user('system');
    call = client(`${platform.urls.api}/api`);
  });

  afterAll(async () => {
    await factory?.close();
    await platform?.stop();
  });

  it('malformed JSON: 400', async () => {
    const res = await call('POST', '/v1/wa/apps', {
      auth: sys.auth,
      raw: '{"name": "broken',
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(res, 400);
    expect(res.body.detail).toMatch(/not valid JSON/);
  });

  it('an unknown field: 400 naming the field', async () => {
    const res = await call('POST', '/v1/wa/apps', { auth: sys.auth, body: { name: 'Valid name', colour: 'red' } });
    expectProblem(res, 400, '/problems/validation-error');
    expect(errorFields(res)).toEqual(['colour']);
  });

  it('a wrong type: 400 naming the field', async () => {
    const res = await call('POST', '/v1/wa/apps', { auth: sys.auth, body: { name: 12345 } });
    expectProblem(res, 400, '/problems/validation-error');
    expect(errorFields(res)).toContain('name');
  });

  it('a JSON array or a bare value instead of an object: 400', async () => {
    for (const raw of ['[]', '"name"', '42', 'null']) {
      const res = await call('POST', '/v1/wa/apps', {
        auth: sys.auth,
        raw,
        headers: { 'content-type': 'application/json' },
      });
      expectProblem(res, 400);
    }
  });

  it('a body over 256 KiB: 413', async () => {
    const res = await call('POST', '/v1/wa/apps', {
      auth: sys.auth,
      raw: JSON.stringify({ name: 'x'.repeat(256 * 1024) }),
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(res, 413);
  });

  it('a text/plain body: 415', async () => {
    const res = await call('POST', '/v1/wa/apps', {
      auth: sys.auth,
      raw: 'name=hello',
      headers: { 'content-type': 'text/plain' },
    });
    expectProblem(res, 415);
  });

  it('a nested unknown field of a template button: 400 with its dotted path', async () => {
    const app = await factory.activeApp(sys.userId);
    const res = await call('POST', `/v1/wa/apps/${app.id}/templates`, {
      auth: sys.auth,
      body: {
        name: 'nested_check',
        language: 'en',
        category: 'UTILITY',
        body: 'Hello',
        body_example: 'Hello',
        buttons: [{ type: 'QUICK_REPLY', text: 'Yes', colour: 'red' }],
      },
    });
    expectProblem(res, 400, '/problems/validation-error');
    expect(errorFields(res)).toEqual(['buttons.0.colour']);
  });

  it('a PATCH without a body: 400, not a 500', async () => {
    const app = await factory.activeApp(sys.userId);
    const res = await call('PATCH', `/v1/wa/apps/${app.id}/templates/1`, { auth: sys.auth });
    expectProblem(res, 400, '/problems/validation-error');
    expect(errorFields(res)).toEqual(expect.arrayContaining(['body', 'body_example']));
  });

  describe('bad input costs a 4xx, never a 500', () => {
    const problemOf = (res: HttpResult, field: string) => {
      expectProblem(res, 400, '/problems/validation-error');
      expect(errorFields(res)).toContain(field);
    };

    it('JSON nested 5,000 levels deep: 400 on the credential-free onboarding route and on an authenticated one', async () => {
      const deep = '['.repeat(5000) + ']'.repeat(5000);
      const headers = { 'content-type': 'application/json' };
      const onboarding = await call('POST', '/v1/onboarding/00000000-0000-4000-8000-000000000000/sandbox?t=x', {
        raw: deep,
        headers,
      });
      expectProblem(onboarding, 400, '/problems/validation-error');
      const nested = `{"name":${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}}`;
      expectProblem(await call('POST', '/v1/wa/apps', { auth: sys.auth, raw: nested, headers }), 400);
      // The service still answers.
      expect((await call('GET', `/v1/users/${sys.userId}/balances`, { auth: sys.auth })).status).toBe(200);
    });

    it('a NUL byte in a path parameter: 400 naming it', async () => {
      const app = await factory.activeApp(sys.userId);
      problemOf(await call('GET', `/v1/wa/apps/${app.id}/messages/%00`, { auth: sys.auth }), 'messageId');
      problemOf(await call('GET', `/v1/subscriptions/a%00b`, { auth: sys.auth }), 'id');
    });

    it('U+0000 in a stored string: 400 naming the field, nothing stored', async () => {
      const app = await factory.activeApp(sys.userId);
      problemOf(await call('POST', '/v1/wa/apps', { auth: sys.auth, body: { name: 'Shop\u0000name' } }), 'name');
      for (const field of ['address', 'description', 'about', 'email', 'website']) {
        const res = await call('PATCH', `/v1/wa/apps/${app.id}/profile`, {
          auth: sys.auth,
          body: { [field]: 'a\u0000' },
        });
        problemOf(res, field);
      }
      expect((await call('GET', `/v1/wa/apps/${app.id}/profile`, { auth: sys.auth })).body).toEqual({});
      const sub = await call('POST', '/v1/subscriptions', {
        auth: sys.auth,
        body: { url: 'https://example.com/hook', events: '*', description: 'mine\u0000' },
      });
      problemOf(sub, 'description');
      expect((await call('GET', '/v1/subscriptions', { auth: sys.auth })).body).toEqual([]);
    });

    it('a lone surrogate or U+0000 in a template: 400 before the channel hears of it', async () => {
      const app = await factory.activeApp(sys.userId);
      const path = `/v1/wa/apps/${app.id}/templates`;
      const bad = [
        { name: 'lone_body', body: 'Hi \ud83d', body_example: 'Hi \ud83d', field: 'body' },
        { name: 'nul_body', body: 'Hi\u0000', body_example: 'Hi', field: 'body' },
        { name: 'nul_footer', footer: 'Bye\u0000', field: 'footer' },
        { name: 'lone_button', buttons: [{ type: 'QUICK_REPLY', text: '\udc00ok' }], field: 'buttons.0.text' },
      ];
      for (const { field, ...overrides } of bad) {
        problemOf(await call('POST', path, { auth: sys.auth, body: textTemplate(overrides) }), field);
      }
      const atChannel = await fetch(`${platform.urls.sandbox}/v21.0/${app.wabaId}/message_templates`, {
        headers: { authorization: 'Bearer sandbox-access-token' },
      });
      const names = ((await atChannel.json()) as { data: { name: string }[] }).data.map((t) => t.name);
      expect(names.filter((n) => /^(lone|nul)_/.test(n))).toEqual([]);
      expect((await call('GET', path, { auth: sys.auth })).body).toEqual([]);
    });

    it('a lone surrogate in the profile email: 400, not a URIError', async () => {
      const app = await factory.activeApp(sys.userId);
      const res = await call('PATCH', `/v1/wa/apps/${app.id}/profile`, {
        auth: sys.auth,
        raw: '{"email":"a\\ud800@example.com"}',
        headers: { 'content-type': 'application/json' },
      });
      problemOf(res, 'email');
    });

    it('a 240 KB body of 80,000 objects in a typed field: a short 400 naming the field', async () => {
      const app = await factory.activeApp(sys.userId);
      const buttons = Array.from({ length: 80_000 }, () => ({}));
      const res = await call('POST', `/v1/wa/apps/${app.id}/templates`, {
        auth: sys.auth,
        body: minimalTemplate({ buttons }),
      });
      problemOf(res, 'buttons');
      expect(res.text.length).toBeLessThan(2048);
      const send = await call('POST', `/v1/wa/apps/${app.id}/messages`, {
        auth: sys.auth,
        body: { phone: '79990001122', type: 'TEMPLATE', template: { name: 'x', components: { buttons } } },
      });
      problemOf(send, 'template.components.buttons');
    });

    it('many invalid fields: at most 20 listed, the detail counts the rest', async () => {
      const app = await factory.activeApp(sys.userId);
      const body = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`unknown_${i}`, i]));
      const res = await call('PATCH', `/v1/wa/apps/${app.id}/profile`, { auth: sys.auth, body });
      expectProblem(res, 400, '/problems/validation-error');
      expect(res.body.errors).toHaveLength(20);
      expect(res.body.detail).toMatch(/40 more errors are not listed/);
    });

    it('bad percent-encoding and an over-long path segment: problems that do not echo the URL', async () => {
      const bad = await call('GET', '/v1/onboarding/%E0%A4%A/sandbox?t=link-secret-token');
      expectProblem(bad, 400);
      expect(bad.text).not.toMatch(/link-secret-token|%E0/);
      const long = await call('GET', `/v1/wa/apps/${'9'.repeat(500)}?t=link-secret-token`, { auth: sys.auth });
      expectProblem(long, 414);
      expect(long.text).not.toMatch(/link-secret-token|9999/);
    });

    it("Node's parser refusals (bad header bytes, oversized headers): problem+json, never the URL", async () => {
      const base = platform.urls.api;
      const badByte = await rawRequest(
        base,
        'GET /api/v1/wa/apps?t=link-secret HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0001b\r\n\r\n',
      );
      expect(badByte).toMatchObject({ status: 400, contentType: 'application/problem+json' });
      expect(JSON.parse(badByte.body)).toMatchObject({ status: 400, type: '/problems/bad-request' });
      expect(badByte.body).not.toMatch(/link-secret/);
      const huge = await rawRequest(base, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
      expect(huge).toMatchObject({ status: 431, contentType: 'application/problem+json' });
      expect(JSON.parse(huge.body)).toMatchObject({ status: 431, type: '/problems/request-header-fields-too-large' });
    });

    it('an error on the onboarding link never echoes its token', async () => {
      const res = await call(
        'POST',
        '/v1/onboarding/00000000-0000-4000-8000-000000000000/sandbox?t=link-secret-token',
        {
          raw: '{"phone": ',
          headers: { 'content-type': 'application/json' },
        },
      );
      expectProblem(res, 400);
      expect(res.text).not.toMatch(/link-secret-token/);
      const unknown = await call('GET', '/v1/no-such-route?t=link-secret-token');
      expectProblem(unknown, 404);
      expect(unknown.text).not.toMatch(/link-secret-token/);
    });
  });
});

/** A TCP relay to PostgreSQL that a test can cut (as if the database went away) and restore. */
async function databaseRelay(
  target: URL,
): Promise<{ url: (databaseUrl: string) => string; cut(): Promise<void>; restore(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
  });
  const listen = (port = 0) => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  await listen();
  const port = (server.address() as { port: number }).port;
  return {
    url: (databaseUrl) => {
      const u = new URL(databaseUrl);
      u.host = `127.0.0.1:${port}`;
      return u.toString();
    },
    cut: async () => {
      const closed = new Promise((resolve) => server.close(resolve));
      for (const s of sockets) s.destroy();
      await closed;
    },
    restore: () => listen(port),
  };
}

describe('the database unreachable at the edge', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let sys: TestUser;
  let call: ReturnType<typeof client>;
  let relay: Awaited<ReturnType<typeof databaseRelay>>;

  beforeAll(async () => {
    platform = await startPlatform({ suite: 'api-db-outage', services: [] });
    relay = await databaseRelay(new URL(platform.env.DATABASE_URL));
    // Only the api goes through the relay; the factory writes straight to the database.
    platform.env.DATABASE_URL = relay.url(platform.env.DATABASE_URL);
    await platform.startService('api');
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    sys = await factory.user('system');
    call = client(`${platform.urls.api}/api`);
  });

  afterAll(async () => {
    await relay?.restore().catch(() => undefined);
    await factory?.close();
    await platform?.stop();
  });

  it('a valid token while the token store is unreachable: 503 with Retry-After, never 401; back to 200 after', async () => {
    const balances = `/v1/users/${sys.userId}/balances`;
    expect((await call('GET', balances, { auth: sys.auth })).status).toBe(200);

    await relay.cut();
    for (const [method, path, body] of [
      ['GET', balances, undefined],
      ['POST', '/v1/wa/apps', { name: 'During the outage' }],
    ] as const) {
      const res = await call(method, path, { auth: sys.auth, body });
      expectProblem(res, 503, '/problems/service-unavailable');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // A token that is not even well formed is still refused without asking the database.
    expectProblem(await call('GET', balances, { auth: 'Bearer nope' }), 401);

    await relay.restore();
    await waitFor(async () => (await call('GET', balances, { auth: sys.auth })).status === 200, 20_000);
  });
});
