import { call, ConsolePlatform, consoleUser, ConsoleUser, startConsolePlatform } from './support/console';

/**
 * "Connect WhatsApp" from the console (`/v1/connections/signups`): the api creates an app of the
 * account's user and its onboarding link; once the signup on that page connects a number (the
 * sandbox mode's form here), the status says so and the app links as the account's connection.
 */
describe('WhatsApp signups started from the console', () => {
  let p: ConsolePlatform;
  let owner: ConsoleUser;

  beforeAll(async () => {
    p = await startConsolePlatform('gw-whatsapp-signups');
    owner = await consoleUser(p, 'owner');
  });

  afterAll(async () => {
    await p?.stop();
  });

  it('starts a signup, follows it to a connected number and links the app as a connection', async () => {
    const started = await owner.call('/v1/connections/signups', { body: { name: 'Acme support' } });
    expect(started.status).toBe(201);
    const appId = started.body.app_id as number;
    const link = new URL(started.body.embed_link_url as string);
    expect(`${link.origin}`).toBe(new URL(p.platform.urls.api).origin);
    expect(link.pathname).toMatch(/^\/api\/v1\/onboarding\/[0-9a-f-]{36}$/);
    expect(started.body.expires_at).toBeGreaterThan(Date.now() / 1000);

    const waiting = await owner.call(`/v1/connections/signups/${appId}`);
    expect(waiting.body).toEqual({ app_id: appId, status: 'INACTIVE', connected: false, phone: null });
    // Not connected yet: the app cannot be linked.
    expect((await owner.call('/v1/connections', { body: { channel: 'whatsapp', app_id: appId } })).status).toBe(422);

    // The business completes the signup on the link's page.
    const page = await fetch(link);
    expect(page.status).toBe(200);
    const completed = await fetch(`${link.origin}${link.pathname}/sandbox${link.search}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ phone: '5511987650001' }),
    });
    expect(completed.status).toBe(200);

    const connected = await owner.call(`/v1/connections/signups/${appId}`);
    expect(connected.body).toEqual({ app_id: appId, status: 'ACTIVE', connected: true, phone: '5511987650001' });
    const linked = await owner.call('/v1/connections', { body: { channel: 'whatsapp', app_id: appId } });
    expect(linked.status).toBe(201);
    const list = await owner.call('/v1/connections');
    const connections = list.body as unknown as { channel: string; app_id?: number; state: string }[];
    expect(connections.find((c) => c.app_id === appId)).toMatchObject({ channel: 'whatsapp', state: 'active' });
    // The link is spent.
    expect((await fetch(link)).status).toBe(410);
  });

  it('is for owners and managers with the CSRF token, checks the name, and hides other users’ apps', async () => {
    const viewer = await consoleUser(p, 'viewer');
    expect((await viewer.call('/v1/connections/signups', { body: { name: 'Acme support' } })).status).toBe(403);
    const manager = await consoleUser(p, 'manager');
    const noCsrf = await manager.call('/v1/connections/signups', { body: { name: 'Acme support' }, csrf: false });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body.type).toBe('/problems/csrf');
    for (const name of ['abc', 'x'.repeat(151), 42]) {
      const bad = await manager.call('/v1/connections/signups', { body: { name } });
      expect({ name, status: bad.status }).toEqual({ name, status: 400 });
    }
    const mine = await manager.call('/v1/connections/signups', { body: { name: 'Acme sales' } });
    expect(mine.status).toBe(201);
    // With the account's API token too.
    const byToken = await call(p.gateway, '/v1/connections/signups', {
      token: p.token,
      body: { name: 'Acme billing' },
    });
    expect(byToken.status).toBe(201);

    const other = await p.factory.user('system');
    const stranger = await p.accounts.createAccount('stranger', other.userId);
    const theirs = await call(p.gateway, `/v1/connections/signups/${mine.body.app_id}`, { token: stranger.token });
    expect(theirs.status).toBe(404);
    for (const id of ['0', 'abc', '99999999999']) {
      expect((await manager.call(`/v1/connections/signups/${id}`)).status).toBe(404);
    }
  });
});
