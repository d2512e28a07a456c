import { Browser, chromium } from 'playwright-core';
import type { Subscription } from '@nats-io/nats-core';
import { EventEnvelope } from '@app/contracts';
import { loadConfig } from '@app/config';
import { NatsClients } from '@app/messaging';
import { Clock } from '@app/server';
import { browserIt, findChromium } from '@app/testing';
import { EmbedLinks } from '../src/wa-apps/embed-links';
import { ApiConfig } from '../src/config';
import { ApiFactory, TestUser } from '../../../test/support/factories';
import { Platform, startPlatform } from '../../../test/support/platform';
import { client, expectProblem } from './support/http';

/** The onboarding page behind embed_link_url, driven in a real (headless) browser. */
describe('onboarding through embed_link_url (sandbox mode)', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let sys: TestUser;
  let call: ReturnType<typeof client>;
  let browser: Browser;
  let nats: NatsClients;

  beforeAll(async () => {
    platform = await startPlatform({ suite: 'api-onboarding', services: ['api'], env: { WHATSAPP_MODE: 'sandbox' } });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    sys = await factory.user('system');
    call = client(`${platform.urls.api}/api`);
    nats = await NatsClients.connect({ url: platform.infra.natsUrl, name: 'onboarding-test' });
    const executablePath = findChromium();
    // Without a browser its tests report themselves skipped (or fail under CI=true).
    if (executablePath)
      browser = await chromium.launch({
        executablePath,
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
      });
  });

  afterAll(async () => {
    await browser?.close();
    await nats?.drain();
    await factory?.close();
    await platform?.stop();
  });

  const createApp = async (name: string) => {
    const res = await call('POST', '/v1/wa/apps', { auth: sys.auth, body: { name } });
    expect(res.status).toBe(201);
    return res.body as { id: number; uuid: string; embed_link_url: string };
  };

  function nextEvent(sub: Subscription): Promise<EventEnvelope> {
    return (async () => {
      for await (const m of sub) return m.json<EventEnvelope>();
      throw new Error('subscription closed');
    })();
  }

  browserIt(
    'the business enters a number, clicks Connect and sees Connected; the app is ACTIVE with its number',
    async () => {
      const app = await createApp('Tea <Shop> & Co');
      const sub = nats.nc.subscribe(platform.infra.topology.eventSubject('app.updated'), { max: 1 });
      const event = nextEvent(sub);

      const page = await browser.newPage();
      try {
        const response = await page.goto(app.embed_link_url);
        expect(response?.status()).toBe(200);
        // Never framed: a framing page could trick the business into connecting a number.
        expect(response?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
        // The name is shown as text, never interpreted as markup.
        expect(await page.textContent('#app-name')).toBe('Tea <Shop> & Co');

        await page.fill('#phone', '012345');
        await page.click('#connect');
        await page.waitForSelector('#error:has-text("8 to 15 digits")');

        await page.fill('#phone', '4915112345678');
        await page.click('#connect');
        await page.waitForSelector('#result:has-text("Connected")');
        expect(await page.textContent('#result')).toBe('Connected: +4915112345678');
      } finally {
        await page.close();
      }

      const got = await call('GET', `/v1/wa/apps/${app.id}`, { auth: sys.auth });
      expect(got.body).toMatchObject({ status: 'ACTIVE', phone: '4915112345678', message_limit: 'TIER_NOT_SET' });
      expect(got.body.waba_id).toMatch(/^[1-9][0-9]{14}$/);

      const published = await event;
      expect(published).toMatchObject({
        type: 'app.updated',
        channel: 'whatsapp',
        app_id: app.id,
        user_id: sys.userId,
        data: { status: 'ACTIVE', phone: '4915112345678', waba_id: got.body.waba_id },
      });

      // The channel credential is recorded for sending.
      const row = await factory.dataSource.query(`SELECT phone_number_id FROM apps WHERE id = $1`, [app.id]);
      expect(row[0].phone_number_id).toMatch(/^[1-9][0-9]{14}$/);

      // The link is spent: opening it again shows no form and connects nothing.
      const again = await browser.newPage();
      try {
        const reopened = await again.goto(app.embed_link_url);
        expect(reopened?.status()).toBe(410);
        expect(await again.textContent('h1')).toBe('This link has already been used');
        expect(await again.$('#connect-form')).toBeNull();
      } finally {
        await again.close();
      }
    },
  );

  it('a link past its expiry opens nothing and connects nothing; the owner gets a fresh one that works', async () => {
    const app = await createApp('Expired link shop');
    const links = new EmbedLinks(loadConfig(ApiConfig, { ...process.env, ...platform.env }), new Clock());
    const eightDaysAgo = Date.now() - 8 * 24 * 3600 * 1000;
    const expired = new URL(links.create(app.uuid, eightDaysAgo).url);
    const page = await fetch(`${platform.urls.api}${expired.pathname}${expired.search}`);
    expect(page.status).toBe(410);
    expect(await page.text()).toContain('This link has expired');
    const path = expired.pathname.replace(/^\/api/, '');
    expectProblem(
      await call('POST', `${path}/sandbox${expired.search}`, { body: { phone: '4915112345678' } }),
      410,
      '/problems/link-expired',
    );
    // The expiry is signed: moving it forward breaks the signature.
    const [, sig] = expired.searchParams.get('t')!.split('.');
    const moved = `t=${Math.floor(Date.now() / 1000) + 3600}.${sig}`;
    expectProblem(await call('POST', `${path}/sandbox?${moved}`, { body: { phone: '4915112345678' } }), 404);
    expect((await call('GET', `/v1/wa/apps/${app.id}`, { auth: sys.auth })).body.status).toBe('INACTIVE');

    // The first link lives 7 days by default.
    const created = Number(new URL(app.embed_link_url).searchParams.get('t')!.split('.')[0]);
    expect(created - Date.now() / 1000).toBeGreaterThan(7 * 24 * 3600 - 60);
    expect(created - Date.now() / 1000).toBeLessThanOrEqual(7 * 24 * 3600);

    const other = await factory.user('system');
    expectProblem(await call('POST', `/v1/wa/apps/${app.id}/embed-link`, { auth: other.auth }), 403);
    expectProblem(await call('POST', `/v1/wa/apps/999999/embed-link`, { auth: sys.auth }), 404);
    const fresh = await call('POST', `/v1/wa/apps/${app.id}/embed-link`, { auth: sys.auth });
    expect(fresh.status).toBe(201);
    expect(fresh.body.expires_at).toBeGreaterThan(Date.now() / 1000 + 7 * 24 * 3600 - 60);
    const freshUrl = new URL(fresh.body.embed_link_url);
    const connected = await call('POST', `${freshUrl.pathname.replace(/^\/api/, '')}/sandbox${freshUrl.search}`, {
      body: { phone: '4915112345679' },
    });
    expect(connected.status).toBe(200);
    expectProblem(
      await call('POST', `/v1/wa/apps/${app.id}/embed-link`, { auth: sys.auth }),
      409,
      '/problems/app-already-connected',
    );

    // Documented like the other endpoints.
    const doc = (await call('GET', '/openapi.json')).body;
    const op = doc.paths['/v1/wa/apps/{appId}/embed-link'].post;
    expect(Object.keys(op.responses).sort()).toEqual(['201', '401', '403', '404', '409', '429', '503']);
    expect(op.security).toEqual([{ bearer: [] }]);
    const schema = op.responses['201'].content['application/json'].schema.$ref.split('/').pop();
    expect(Object.keys(doc.components.schemas[schema].properties).sort()).toEqual(['embed_link_url', 'expires_at']);
  });

  it('a link with a wrong token opens nothing and connects nothing', async () => {
    const app = await createApp('Wrong token shop');
    const forged = app.embed_link_url.replace(/t=[^&]+$/, 't=forged');
    const page = await fetch(forged);
    expect(page.status).toBe(404);
    expect(await page.text()).toContain('This link is not valid');

    const path = new URL(forged).pathname.replace(/^\/api/, '');
    const res = await call('POST', `${path}/sandbox?t=forged`, { body: { phone: '4915112345678' } });
    expectProblem(res, 404);
    const noToken = await call('POST', `${path}/sandbox`, { body: { phone: '4915112345678' } });
    expectProblem(noToken, 404);
    expect((await call('GET', `/v1/wa/apps/${app.id}`, { auth: sys.auth })).body.status).toBe('INACTIVE');
  });

  it('the connect endpoint validates the number; the link is spent by the first connection', async () => {
    const app = await createApp('Second connection');
    const url = new URL(app.embed_link_url);
    const path = `${url.pathname.replace(/^\/api/, '')}/sandbox${url.search}`;
    for (const phone of ['+4915112345678', '0123456789', '1234567', '1234567890123456', 'abcdefghij']) {
      expectProblem(await call('POST', path, { body: { phone } }), 400, '/problems/validation-error');
    }
    expect((await call('POST', path, { body: { phone: '12345678' } })).status).toBe(200);
    expectProblem(await call('POST', path, { body: { phone: '123456789012345' } }), 410, '/problems/link-used');
    expect((await call('GET', `/v1/wa/apps/${app.id}`, { auth: sys.auth })).body.phone).toBe('12345678');
  });
});
