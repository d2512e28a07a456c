import { existsSync } from 'node:fs';
import { Browser, chromium } from 'playwright-core';
import type { Subscription } from '@nats-io/nats-core';
import { EventEnvelope } from '@app/contracts';
import { NatsClients } from '@app/messaging';
import { ApiFactory, TestUser } from '../../../test/support/factories';
import { Platform, startPlatform } from '../../../test/support/platform';
import { client, expectProblem } from './support/http';

const CHROMIUM = '/usr/bin/chromium';

/** The onboarding page behind embed_link_url, driven in a real (headless) browser. */
describe('onboarding through embed_link_url (sandbox mode)', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let sys: TestUser;
  let call: ReturnType<typeof client>;
  let browser: Browser;
  let nats: NatsClients;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
    platform = await startPlatform({ suite: 'api-onboarding', services: ['api'], env: { WHATSAPP_MODE: 'sandbox' } });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    sys = await factory.user('system');
    call = client(`${platform.urls.api}/api`);
    nats = await NatsClients.connect({ url: platform.infra.natsUrl, name: 'onboarding-test' });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
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

  it('the business enters a number, clicks Connect and sees Connected; the app is ACTIVE with its number', async () => {
    const app = await createApp('Tea <Shop> & Co');
    const sub = nats.nc.subscribe(platform.infra.topology.eventSubject('app.updated'), { max: 1 });
    const event = nextEvent(sub);

    const page = await browser.newPage();
    try {
      const response = await page.goto(app.embed_link_url);
      expect(response?.status()).toBe(200);
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

    // Opening the link again shows the connected number instead of the form.
    const again = await browser.newPage();
    try {
      await again.goto(app.embed_link_url);
      expect(await again.textContent('#result')).toBe('Connected: +4915112345678');
      expect(await again.$('#connect-form')).toBeNull();
    } finally {
      await again.close();
    }
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

  it('the connect endpoint validates the number and refuses a second connection', async () => {
    const app = await createApp('Second connection');
    const url = new URL(app.embed_link_url);
    const path = `${url.pathname.replace(/^\/api/, '')}/sandbox${url.search}`;
    for (const phone of ['+4915112345678', '0123456789', '1234567', '1234567890123456', 'abcdefghij']) {
      expectProblem(await call('POST', path, { body: { phone } }), 400, '/problems/validation-error');
    }
    expect((await call('POST', path, { body: { phone: '12345678' } })).status).toBe(200);
    expectProblem(
      await call('POST', path, { body: { phone: '123456789012345' } }),
      409,
      '/problems/app-already-connected',
    );
    expect((await call('GET', `/v1/wa/apps/${app.id}`, { auth: sys.auth })).body.phone).toBe('12345678');
  });

  it('the embedded-signup endpoint records the business account and number ids it is given', async () => {
    const app = await createApp('Signup shop');
    const url = new URL(app.embed_link_url);
    const path = `${url.pathname.replace(/^\/api/, '')}/signup${url.search}`;
    const res = await call('POST', path, {
      body: { waba_id: '102290129340398', phone_number_id: '106540352242922', phone: '15550001234' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ACTIVE', phone: '15550001234', waba_id: '102290129340398' });
    const other = await createApp('Another shop');
    const otherUrl = new URL(other.embed_link_url);
    const taken = await call('POST', `${otherUrl.pathname.replace(/^\/api/, '')}/signup${otherUrl.search}`, {
      body: { waba_id: '102290129340398', phone_number_id: '999', phone: '15550001235' },
    });
    expectProblem(taken, 409, '/problems/number-already-connected');
  });
});
