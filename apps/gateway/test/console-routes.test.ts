import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { waitFor } from '@app/testing';
import { Endpoint } from '../../../test/support/webhook-endpoint';
import { call, ConsolePlatform, consoleUser, ConsoleUser, startConsolePlatform } from './support/console';

/**
 * The console's routes through the real gateway, api and webhooks: the app and its CSP, the users
 * and invitations an owner manages, tokens, the balance, transactions and webhooks asked of the
 * api, and the audit log of every change.
 */
describe('console: the app, users, tokens, billing, webhooks and the audit log', () => {
  let p: ConsolePlatform;
  let owner: ConsoleUser;

  beforeAll(async () => {
    p = await startConsolePlatform('gw-console-routes', { WEBHOOK_POLL_INTERVAL_MS: '100' }, ['webhooks']);
    owner = await consoleUser(p, 'owner');
  });

  afterAll(async () => {
    await p?.stop();
  });

  it('serves the app with a strict CSP: index.html for page paths, hashed assets cached, 503 when not built', async () => {
    const csp =
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; " +
      "font-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";
    for (const path of ['/console', '/console/', '/console/campaigns/0193', '/console/sign-in?next=%2F']) {
      const res = await fetch(`${p.gateway}${path}`);
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(res.headers.get('content-security-policy')).toBe(csp);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('same-origin');
      expect(await res.text()).toContain('<div id="app">');
    }
    const asset = await fetch(`${p.gateway}/console/assets/app-1a2b.js`, {
      headers: { 'accept-encoding': 'identity' },
    });
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const raw = await asset.text();
    // Node's fetch decodes gzip itself: ask with plain HTTP to see the encoding.
    const http = await import('node:http');
    const zipped = await new Promise<{ encoding?: string; body: Buffer }>((resolve, reject) => {
      http
        .get(`${p.gateway}/console/assets/app-1a2b.js`, { headers: { 'accept-encoding': 'gzip' } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ encoding: res.headers['content-encoding'], body: Buffer.concat(chunks) }));
        })
        .on('error', reject);
    });
    expect(zipped.encoding).toBe('gzip');
    expect(zipped.body.length).toBeLessThan(raw.length);
    expect(gunzipSync(zipped.body).toString()).toBe(raw);

    expect((await fetch(`${p.gateway}/console/assets/missing-1234.js`)).status).toBe(404);
    expect((await fetch(`${p.gateway}/console/../package.json`)).status).not.toBe(500);
    const api404 = await fetch(`${p.gateway}/console/api/nothing-here`);
    expect(api404.status).toBe(404);
    expect(api404.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(api404.headers.get('content-security-policy')).toBe(csp);

    renameSync(join(p.distDir, 'index.html'), join(p.distDir, 'index.html.off'));
    try {
      const missing = await fetch(`${p.gateway}/console/`);
      expect(missing.status).toBe(503);
      const problem = (await missing.json()) as { type: string; detail: string };
      expect(problem.type).toBe('/problems/console-not-built');
      expect(problem.detail).toContain('pnpm console:build');
    } finally {
      renameSync(join(p.distDir, 'index.html.off'), join(p.distDir, 'index.html'));
    }
  });

  it('an owner invites, changes roles and removes users; the account keeps an owner; others may not', async () => {
    const invited = await owner.call('/console/api/users/invitations', {
      body: { email: 'New.Agent@example.com', role: 'agent' },
    });
    expect(invited.status).toBe(201);
    expect(invited.body.invitation_url).toMatch(new RegExp(`^${p.gateway}/console/invite#[A-Za-z0-9_-]{43}$`));
    const token = (invited.body.invitation_url as string).split('#')[1];
    expect(
      (await call(p.gateway, '/console/api/invitations/accept', { body: { token, password: 'short' } })).status,
    ).toBe(400);
    const accepted = await call(p.gateway, '/console/api/invitations/accept', {
      body: { token, password: 'a fine password' },
    });
    expect(accepted.status).toBe(200);
    expect(accepted.body.user).toMatchObject({
      email: 'new.agent@example.com',
      role: 'agent',
      account_id: p.accountId,
    });

    const users = await owner.call('/console/api/users');
    expect(users.status).toBe(200);
    const agent = (users.body as unknown as { id: string; email: string }[]).find(
      (u) => u.email === 'new.agent@example.com',
    )!;
    expect(
      (await owner.call(`/console/api/users/${agent.id}`, { method: 'PATCH', body: { role: 'viewer' } })).body.role,
    ).toBe('viewer');
    const lastOwner = await owner.call(`/console/api/users/${owner.user.id}`, {
      method: 'PATCH',
      body: { role: 'manager' },
    });
    expect(lastOwner.status).toBe(409);
    expect(lastOwner.body.type).toBe('/problems/last-owner');

    const manager = await consoleUser(p, 'manager');
    const refused = await manager.call('/console/api/users');
    expect(refused.status).toBe(403);
    expect(refused.body.required_role).toBe('owner');
    expect((await manager.call('/console/api/audit')).status).toBe(200);

    const other = await p.accounts.createAccount('another shop', p.user.userId);
    const outsider = await consoleUser(p, 'owner', other.account.id);
    expect((await outsider.call(`/console/api/users/${agent.id}`, { method: 'DELETE' })).status).toBe(404);
    expect((await owner.call(`/console/api/users/${agent.id}`, { method: 'DELETE' })).status).toBe(204);
    expect(
      (
        await call(p.gateway, '/console/api/session', {
          body: { email: 'new.agent@example.com', password: 'a fine password' },
        })
      ).status,
    ).toBe(401);
    expect((await owner.call('/console/api/me', { method: 'PATCH', body: { locale: 'ru' } })).body.user.locale).toBe(
      'ru',
    );
  });

  it('creates tokens shown once, lists them by label, and revokes them (a revoked token gets 401)', async () => {
    const created = await owner.call('/v1/tokens', { body: { label: 'CRM' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ label: 'CRM', id: expect.any(String), created_at: expect.any(Number) });
    expect(created.body.token).toMatch(/^gk_/);
    expect((await call(p.gateway, '/v1/contacts', { token: created.body.token })).status).toBe(200);
    const list = await owner.call('/v1/tokens');
    const listed = (list.body as unknown as Record<string, unknown>[]).find((t) => t.id === created.body.id);
    expect(listed).toEqual({ id: created.body.id, label: 'CRM', created_at: created.body.created_at });
    expect(JSON.stringify(list.body)).not.toContain(created.body.token);

    const other = await p.accounts.createAccount('third shop', p.user.userId);
    expect(
      (await call(p.gateway, `/v1/tokens/${created.body.id}`, { method: 'DELETE', token: other.token })).status,
    ).toBe(404);
    expect((await owner.call(`/v1/tokens/${created.body.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await call(p.gateway, '/v1/contacts', { token: created.body.token })).status).toBe(401);
    expect((await owner.call(`/v1/tokens/${created.body.id}`, { method: 'DELETE' })).status).toBe(404);
    // A token may revoke itself.
    const own = await call(p.gateway, `/v1/tokens/${other.tokenId}`, { method: 'DELETE', token: other.token });
    expect(own.status).toBe(204);
    expect((await call(p.gateway, '/v1/tokens', { token: other.token })).status).toBe(401);
  });

  it('reads the balance and transactions and manages webhooks through the api, with a session or a token', async () => {
    const balance = await owner.call('/v1/balance');
    expect(balance.status).toBe(200);
    expect(balance.body).toEqual({ balance: 25, currency: 'USD' });
    expect((await call(p.gateway, '/v1/balance', { token: p.token })).body).toEqual(balance.body);

    const transactions = await owner.call('/v1/transactions?limit=1');
    expect(transactions.status).toBe(200);
    expect(transactions.body.data).toHaveLength(1);
    expect(transactions.body.data[0]).toMatchObject({ amount: 25, status: 'CREDITED', currency: 'USD' });
    expect((await owner.call('/v1/transactions?limit=1000')).status).toBe(400);
    expect((await owner.call('/v1/transactions?start_date=2026-02-30')).status).toBe(400);

    const endpoint = await new Endpoint().open();
    try {
      const created = await owner.call('/v1/webhooks', {
        body: { url: endpoint.url(), events: ['contact.opted_out'] },
      });
      expect(created.status).toBe(201);
      expect(created.body.secret).toMatch(/^whsec_/);
      const list = await call(p.gateway, '/v1/webhooks', { token: p.token });
      expect((list.body as unknown as { id: string }[]).map((w) => w.id)).toContain(created.body.id);
      const rotated = await owner.call(`/v1/webhooks/${created.body.id}/rotate-secret`, { body: {} });
      expect(rotated.status).toBe(200);
      expect(rotated.body.secret).not.toBe(created.body.secret);
      endpoint.secret = rotated.body.secret;
      const bad = await owner.call('/v1/webhooks', { body: { url: 'not a url', events: ['nope'] } });
      expect(bad.status).toBe(400);

      const test = await fetch(`${p.platform.urls.api}/api/v1/subscriptions/${created.body.id}/test`, {
        method: 'POST',
        headers: { authorization: p.user.auth },
      });
      expect(test.status).toBe(202);
      const deliveries = await waitFor(
        async () => {
          const res = await owner.call(`/v1/webhooks/${created.body.id}/deliveries`);
          const first = res.body.data?.[0];
          return first && first.status !== 'PENDING' && first.attempt_log.length > 0 ? res.body : false;
        },
        20_000,
        'the test delivery and its attempt',
        100,
      );
      const delivery = deliveries.data[0];
      expect(delivery.attempt_log[0]).toMatchObject({ attempt: 1, status: 'SUCCEEDED', response_status: 204 });
      const resent = await owner.call(`/v1/webhooks/${created.body.id}/deliveries/${delivery.id}/resend`, { body: {} });
      expect(resent.status).toBe(202);
      expect(resent.body).toMatchObject({ delivery_id: expect.any(String), status: expect.any(String) });

      const other = await p.factory.user('system');
      const stranger = await p.accounts.createAccount('stranger', other.userId);
      const theirs = await call(p.gateway, `/v1/webhooks/${created.body.id}/deliveries`, { token: stranger.token });
      expect(theirs.status).toBe(404);
    } finally {
      await endpoint.close();
    }
  });

  it('records every change made through the console in the audit log, newest first, paged', async () => {
    const manager = await consoleUser(p, 'manager');
    const contact = await manager.call('/v1/contacts', { body: { name: 'Audited', identities: { telegram: '9001' } } });
    expect(contact.status).toBe(201);
    const log = await waitFor(
      async () => {
        const res = await owner.call('/console/api/audit?limit=100');
        const line = (res.body.data as Record<string, unknown>[]).find((r) => r.action === 'POST /v1/contacts');
        return line ? res.body : false;
      },
      10_000,
      'the audit line of the contact',
      100,
    );
    const line = (log.data as Record<string, unknown>[]).find((r) => r.action === 'POST /v1/contacts')!;
    expect(line).toMatchObject({ user_email: manager.user.email, details: { status: 201 }, at: expect.any(Number) });
    const actions = (log.data as { action: string }[]).map((r) => r.action);
    expect(actions).toEqual(
      expect.arrayContaining([
        'user.invited',
        'invitation.accepted',
        'user.role_changed',
        'user.removed',
        'POST /v1/tokens',
        'DELETE /v1/tokens/:id',
        'session.signed_in',
      ]),
    );
    const page = await owner.call('/console/api/audit?limit=2');
    expect(page.body.data).toHaveLength(2);
    const next = await owner.call(`/console/api/audit?limit=2&cursor=${page.body.next_cursor}`);
    expect(next.body.data).toHaveLength(2);
    expect(next.body.data[0].at).toBeLessThanOrEqual(page.body.data[1].at);
    expect((await owner.call('/console/api/audit?cursor=nope')).status).toBe(400);
    const other = await p.accounts.createAccount('quiet shop', p.user.userId);
    const outsider = await consoleUser(p, 'owner', other.account.id);
    const theirs = await outsider.call('/console/api/audit');
    expect((theirs.body.data as { action: string }[]).every((r) => r.action.startsWith('session.'))).toBe(true);
  });
});
