import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { consoleDemoOwner } from '../../../scripts/console-demo';
import {
  call,
  cli,
  ConsolePlatform,
  consoleUser,
  ConsoleUser,
  sessionCookieOf,
  startConsolePlatform,
} from './support/console';

/**
 * Signing in to the console through the real gateway and Postgres: the CLI's first owner and
 * invitation links, passwords, the lock-out, the cookie, CSRF, roles on the /v1 routes, signing out
 * and idle sessions.
 */
describe('console: users, sessions, CSRF and roles', () => {
  let p: ConsolePlatform;
  let env: Record<string, string>;

  beforeAll(async () => {
    p = await startConsolePlatform('gw-console-auth');
    env = { DATABASE_URL: p.platform.infra.databaseUrl, GATEWAY_PUBLIC_URL: p.gateway };
  });

  afterAll(async () => {
    await p?.stop();
  });

  it('creates the first owner from the CLI, who signs in; without --password the CLI prints an invitation link', async () => {
    const created = await cli(
      env,
      'console:users:create',
      '--account',
      p.accountId,
      '--email',
      'First.Owner@Example.com',
      '--role',
      'owner',
      '--password',
      'a long enough password',
      '--json',
    );
    expect(created.code).toBe(0);
    expect(JSON.parse(created.out)).toMatchObject({
      account_id: p.accountId,
      email: 'first.owner@example.com',
      role: 'owner',
      user_id: expect.any(String),
    });
    const owner = await ConsoleUser.signIn(p.gateway, 'first.owner@example.com', 'a long enough password');
    expect(owner.user).toMatchObject({
      role: 'owner',
      account_id: p.accountId,
      account_name: 'console shop',
      locale: 'en',
    });
    const stored = await p.gatewayDb.query(`SELECT password_hash FROM console_users WHERE email = $1`, [
      'first.owner@example.com',
    ]);
    expect(stored[0].password_hash).toMatch(/^scrypt\$15\$8\$1\$/);
    expect(stored[0].password_hash).not.toContain('a long enough password');

    const invited = await cli(
      env,
      'console:users:create',
      '--account',
      p.accountId,
      '--email',
      'later@example.com',
      '--role',
      'agent',
      '--json',
    );
    expect(invited.code).toBe(0);
    const link = JSON.parse(invited.out).invitation_url as string;
    expect(link).toMatch(new RegExp(`^${p.gateway}/console/invite#[A-Za-z0-9_-]{43}$`));
    const accepted = await call(p.gateway, '/console/api/invitations/accept', {
      body: { token: link.split('#')[1], password: 'my own password' },
    });
    expect(accepted.status).toBe(200);
    expect(accepted.body.user).toMatchObject({ email: 'later@example.com', role: 'agent' });
    const again = await call(p.gateway, '/console/api/invitations/accept', {
      body: { token: link.split('#')[1], password: 'my own password' },
    });
    expect(again.status).toBe(404);

    const taken = await cli(
      env,
      'console:users:create',
      '--account',
      p.accountId,
      '--email',
      'later@example.com',
      '--role',
      'viewer',
      '--json',
    );
    expect(taken.code).toBe(2);
    expect(taken.err).toMatch(/already exists/);
    // Three CLI processes, each compiling the CLI on start: slow on a busy machine, not a measure.
  }, 240_000);

  it('sets an HttpOnly, SameSite=Strict cookie on sign-in and answers wrong credentials alike with 401', async () => {
    const viewer = await consoleUser(p, 'viewer');
    const res = await call(p.gateway, '/console/api/session', {
      body: { email: viewer.user.email, password: 'correct horse battery' },
    });
    expect(res.status).toBe(200);
    const cookie = res.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^console_session=[A-Za-z0-9_-]{43}; /);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    expect(cookie).toContain('Path=/');
    expect(cookie).not.toContain('Secure');
    expect(res.body.csrf_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const current = await call(p.gateway, '/console/api/session', { cookie: sessionCookieOf(res.headers) });
    expect(current.body).toEqual(res.body);

    const wrong = await call(p.gateway, '/console/api/session', {
      body: { email: viewer.user.email, password: 'nope' },
    });
    const unknown = await call(p.gateway, '/console/api/session', {
      body: { email: 'nobody@example.com', password: 'nope' },
    });
    for (const r of [wrong, unknown]) {
      expect(r.status).toBe(401);
      expect(r.body).toMatchObject({ type: '/problems/invalid-credentials', status: 401 });
      expect(r.headers.get('set-cookie')).toBeNull();
    }
    expect(wrong.body.detail).toBe(unknown.body.detail);
    expect((await call(p.gateway, '/console/api/session')).status).toBe(401);
  });

  it('locks an email out after 5 failures in 15 minutes, even for the right password, with Retry-After', async () => {
    const agent = await consoleUser(p, 'agent');
    for (let i = 0; i < 5; i++) {
      const r = await call(p.gateway, '/console/api/session', {
        body: { email: agent.user.email, password: `wrong-${i}` },
      });
      expect(r.status).toBe(401);
    }
    const locked = await call(p.gateway, '/console/api/session', {
      body: { email: agent.user.email, password: 'correct horse battery' },
    });
    expect(locked.status).toBe(429);
    expect(locked.body.type).toBe('/problems/locked-out');
    const retry = Number(locked.headers.get('retry-after'));
    expect(retry).toBeGreaterThan(800);
    expect(retry).toBeLessThanOrEqual(900);
    // Fifteen minutes later (the failures moved back in time) the right password signs in again.
    await p.gatewayDb.query(`UPDATE console_sign_in_failures SET at = at - interval '16 minutes'`);
    const later = await call(p.gateway, '/console/api/session', {
      body: { email: agent.user.email, password: 'correct horse battery' },
    });
    expect(later.status).toBe(200);
  });

  it('a session reads /v1 routes; a change needs the X-CSRF-Token; another account’s ids are refused as for its token', async () => {
    const manager = await consoleUser(p, 'manager');
    const list = await manager.call('/v1/contacts');
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual(expect.any(Array));

    const refused = await manager.call('/v1/contacts', { body: { name: 'No token' }, csrf: false });
    expect(refused.status).toBe(403);
    expect(refused.body.type).toBe('/problems/csrf');
    const wrongToken = await call(p.gateway, '/v1/contacts', {
      body: { name: 'Wrong token' },
      cookie: manager.cookie,
      csrf: 'x'.repeat(43),
    });
    expect(wrongToken.status).toBe(403);
    const created = await manager.call('/v1/contacts', { body: { name: 'Anna', identities: { telegram: '4242' } } });
    expect(created.status).toBe(201);

    const other = await p.accounts.createAccount('someone else', p.user.userId);
    const theirs = await call(p.gateway, '/v1/contacts', {
      token: other.token,
      body: { name: 'Theirs', identities: { telegram: '777' } },
    });
    expect(theirs.status).toBe(201);
    // The same answer as the account's bearer token gets, never the other account's contact.
    const asToken = await call(p.gateway, `/v1/contacts/${theirs.body.id}`, { token: p.token });
    expect([403, 404]).toContain(asToken.status);
    const asSession = await manager.call(`/v1/contacts/${theirs.body.id}`);
    expect([asSession.status, asSession.body.type]).toEqual([asToken.status, asToken.body.type]);
    expect(asSession.body.name).toBeUndefined();
    const removed = await manager.call(`/v1/contacts/${theirs.body.id}`, { method: 'DELETE' });
    expect([403, 404]).toContain(removed.status);
    expect((await call(p.gateway, `/v1/contacts/${theirs.body.id}`, { token: other.token })).status).toBe(200);
    expect((await manager.call(`/v1/contacts/${created.body.id}`)).status).toBe(200);
  });

  it('a viewer only reads; an agent works conversations but may not create a campaign', async () => {
    const viewer = await consoleUser(p, 'viewer');
    expect((await viewer.call('/v1/campaigns')).status).toBe(200);
    const change = await viewer.call('/v1/contacts', { body: { name: 'Not allowed' } });
    expect(change.status).toBe(403);
    expect(change.body).toMatchObject({ type: '/problems/forbidden', required_role: 'manager' });

    const agent = await consoleUser(p, 'agent');
    const missing = '0193a0a0-0000-7000-8000-000000000000';
    // Allowed through: the conversation is simply not there.
    for (const [method, path, body] of [
      ['POST', `/v1/conversations/${missing}/read`, undefined],
      ['PATCH', `/v1/conversations/${missing}`, { status: 'closed' }],
      ['POST', `/v1/conversations/${missing}/messages`, { type: 'text', text: 'hi' }],
    ] as const) {
      const res = await agent.call(path, { method, body: body ?? {} });
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 404 });
    }
    expect((await viewer.call(`/v1/conversations/${missing}/read`, { body: {} })).body.required_role).toBe('agent');
    const campaign = await agent.call('/v1/campaigns', { body: { name: 'x' } });
    expect(campaign.status).toBe(403);
    expect(campaign.body.required_role).toBe('manager');
    const tokens = await (await consoleUser(p, 'manager')).call('/v1/tokens');
    expect(tokens.status).toBe(403);
    expect(tokens.body.required_role).toBe('owner');
  });

  it('signing out ends the session; signing out everywhere ends the others; an idle session ends', async () => {
    const owner = await consoleUser(p, 'owner');
    const password = 'correct horse battery';
    const second = await ConsoleUser.signIn(p.gateway, owner.user.email, password);
    const third = await ConsoleUser.signIn(p.gateway, owner.user.email, password);

    expect((await owner.call('/console/api/session', { method: 'DELETE', csrf: false })).status).toBe(403);
    const out = await owner.call('/console/api/session', { method: 'DELETE' });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/^console_session=; .*Max-Age=0/);
    expect((await owner.call('/v1/contacts')).status).toBe(401);
    expect((await owner.call('/console/api/session')).status).toBe(401);
    expect((await second.call('/v1/contacts')).status).toBe(200);

    expect((await second.call('/console/api/session/sign-out-everywhere', { method: 'POST' })).status).toBe(204);
    expect((await second.call('/v1/contacts')).status).toBe(401);
    expect((await third.call('/v1/contacts')).status).toBe(401);

    const idle = await ConsoleUser.signIn(p.gateway, owner.user.email, password);
    expect((await idle.call('/v1/contacts')).status).toBe(200);
    // 31 minutes without a request (the idle limit is 30).
    await p.gatewayDb.query(
      `UPDATE console_sessions SET last_seen_at = now() - interval '31 minutes' WHERE user_id = $1`,
      [owner.user.id],
    );
    expect((await idle.call('/v1/contacts')).status).toBe(401);
    const busy = await ConsoleUser.signIn(p.gateway, owner.user.email, password);
    // Used a minute ago, but signed in 13 hours ago (the absolute limit is 12).
    await p.gatewayDb.query(
      `UPDATE console_sessions SET created_at = now() - interval '13 hours', last_seen_at = now() - interval '1 minute' WHERE user_id = $1`,
      [owner.user.id],
    );
    expect((await busy.call('/v1/contacts')).status).toBe(401);
  });

  it("gives the local stack's demo account an owner whose printed sign-in works, start after start", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'console-demo-'));
    writeFileSync(join(dir, 'demo.json'), JSON.stringify({ accountToken: p.token }));
    const lines = await consoleDemoOwner(p.platform.infra.databaseUrl, join(dir, 'demo.json'), p.gateway);
    expect(lines[0]).toContain(`${p.gateway}/console/`);
    const { email, password } = JSON.parse(readFileSync(join(dir, 'console-demo.json'), 'utf8'));
    expect(lines[1]).toContain(`${email} / ${password}`);
    const first = await ConsoleUser.signIn(p.gateway, email, password);
    expect(first.user).toMatchObject({ role: 'owner', account_id: p.accountId });
    await consoleDemoOwner(p.platform.infra.databaseUrl, join(dir, 'demo.json'), p.gateway);
    expect((await ConsoleUser.signIn(p.gateway, email, password)).user.id).toBe(first.user.id);
  });

  it('a bearer token still works as before, whatever cookie comes with it', async () => {
    const res = await call(p.gateway, '/v1/contacts', { token: p.token, cookie: 'console_session=bogus' });
    expect(res.status).toBe(200);
    const bad = await call(p.gateway, '/v1/contacts', {
      token: 'gk_not_a_real_token_at_all',
      cookie: 'console_session=x',
    });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toBe('Bearer');
    const none = await call(p.gateway, '/v1/contacts', { cookie: 'console_session=not-a-session' });
    expect(none.status).toBe(401);
  });
});
