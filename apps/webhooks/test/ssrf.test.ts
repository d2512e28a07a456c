import { INestApplication } from '@nestjs/common';
import { CreatedSubscriptionView } from '@app/contracts';
import { loadConfig } from '@app/config';
import { WebhooksConfig } from '../src/config';
import { createWebhooksApp } from '../src/webhooks.app';
import { ApiFactory } from '../../../test/support/factories';
import { Platform, startPlatform } from '../../../test/support/platform';
import { call } from './support/api';

/**
 * Without WEBHOOKS_ALLOW_PRIVATE_TARGETS, subscriptions may only point at public HTTPS endpoints,
 * whatever NODE_ENV says (staging runs as development, as here). The rule belongs to the webhooks
 * service, so only it runs with the protection on here (the api only forwards).
 */
describe('subscription targets with SSRF protection on (SSRF)', () => {
  let platform: Platform;
  let webhooks: INestApplication;
  let factory: ApiFactory;

  beforeAll(async () => {
    platform = await startPlatform({ suite: 'webhooks_ssrf', services: ['api'] });
    const config = loadConfig(WebhooksConfig, {
      ...process.env,
      ...platform.env,
      NODE_ENV: 'development',
      WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'false',
    });
    expect(config.isProduction).toBe(false);
    webhooks = await createWebhooksApp(config);
    await webhooks.listen(config.WEBHOOKS_PORT, '127.0.0.1');
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
  });

  afterAll(async () => {
    await factory?.close();
    await webhooks?.close();
    await platform?.stop();
  });

  it.each([
    ['plain http', 'http://93.184.215.14/hook', /https/],
    ['loopback', 'https://127.0.0.1/hook', /private or local/],
    ['loopback by name', 'https://localhost:8443/hook', /private or local/],
    ['private network', 'https://10.1.2.3/hook', /private or local/],
    ['link-local (cloud metadata)', 'https://169.254.169.254/latest/meta-data', /private or local/],
    ['carrier-grade NAT', 'https://100.64.0.1/hook', /private or local/],
    ['IPv6 loopback', 'https://[::1]/hook', /private or local/],
    ['IPv6 unique-local', 'https://[fd00::1]/hook', /private or local/],
    ['IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/hook', /private or local/],
    ['unspecified', 'https://0.0.0.0/hook', /private or local/],
  ])('refuses %s with a 400 problem on url', async (_name, url, reason) => {
    const user = await factory.user();
    const res = await call<{ errors: { field: string; message: string }[] }>(
      platform.urls.api,
      user.auth,
      'POST',
      '/subscriptions',
      { url, events: '*' },
    );
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body.errors).toEqual([{ field: 'url', message: expect.stringMatching(reason) }]);
    // The answer never tells which internal address a name resolved to.
    expect(JSON.stringify(res.body)).not.toMatch(/127\.0\.0\.1|::1\b/);
    expect((await call<unknown[]>(platform.urls.api, user.auth, 'GET', '/subscriptions')).body).toEqual([]);
  });

  it('accepts a public HTTPS address, and refuses to move it to a private one', async () => {
    const user = await factory.user();
    const created = await call<CreatedSubscriptionView>(platform.urls.api, user.auth, 'POST', '/subscriptions', {
      url: 'https://93.184.215.14/hook',
      events: '*',
    });
    expect(created.status).toBe(201);
    const moved = await call<{ errors: { field: string }[] }>(
      platform.urls.api,
      user.auth,
      'PATCH',
      `/subscriptions/${created.body.id}`,
      { url: 'https://192.168.1.10/hook' },
    );
    expect(moved.status).toBe(400);
    expect(moved.body.errors[0].field).toBe('url');
  });
});
