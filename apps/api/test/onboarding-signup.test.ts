import { Browser, chromium } from 'playwright-core';
import { browserIt, findChromium } from '@app/testing';
import { ApiFactory, TestUser } from '../../../test/support/factories';
import { fakeFacebook } from '../../../test/support/fake-facebook';
import { Platform, startPlatform } from '../../../test/support/platform';
import { client, expectProblem } from './support/http';

/**
 * Cloud-mode onboarding through the channel's embedded signup, against the sandbox's emulation of
 * Meta: the code is exchanged by the gateway, the grant is checked with debug_token, the number is
 * read from Graph, the app is subscribed to the WABA and the number registered.
 */
describe('onboarding through the embedded signup (cloud mode)', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let sys: TestUser;
  let call: ReturnType<typeof client>;
  let sandbox: ReturnType<typeof client>;
  let browser: Browser;

  beforeAll(async () => {
    const executablePath = findChromium();
    // Without a browser its tests report themselves skipped (or fail under CI=true).
    if (executablePath)
      browser = await chromium.launch({
        executablePath,
        args: ['--headless', '--no-sandbox', '--disable-gpu'],
      });
    platform = await startPlatform({
      suite: 'api-onboarding-signup',
      services: ['sandbox', 'gateway', 'api'],
      env: { WHATSAPP_MODE: 'cloud', WHATSAPP_APP_ID: 'sandbox-app-id' },
    });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    sys = await factory.user('system');
    call = client(`${platform.urls.api}/api`);
    sandbox = client(`${platform.urls.sandbox}/_sandbox/whatsapp`);
  });

  afterAll(async () => {
    await browser?.close();
    await factory?.close();
    await platform?.stop();
  });

  let nextId = 100000000000000 + Math.floor(Math.random() * 1e9) * 1000;
  const id = () => String(nextId++);

  /** A business completes Meta's popup choosing this WABA and number: the code the page gets. */
  async function signupCode(wabaId: string, phoneNumberId: string, display = '+1 555-000-1234'): Promise<string> {
    const res = await sandbox('POST', '/signups', {
      body: { waba_id: wabaId, phone_number_id: phoneNumberId, display_phone_number: display },
    });
    expect(res.status).toBe(201);
    return res.body.code;
  }

  async function createApp(name: string) {
    const res = await call('POST', '/v1/wa/apps', { auth: sys.auth, body: { name } });
    expect(res.status).toBe(201);
    const url = new URL(res.body.embed_link_url);
    return {
      id: res.body.id as number,
      link: res.body.embed_link_url as string,
      signupPath: `${url.pathname.replace(/^\/api/, '')}/signup${url.search}`,
    };
  }

  const appRow = async (appId: number) =>
    (
      await factory.dataSource.query(`SELECT status, phone, waba_id, phone_number_id FROM apps WHERE id = $1`, [appId])
    )[0];

  it('the page loads Meta’s SDK, cannot be framed and asks for no number', async () => {
    const app = await createApp('Cloud page shop');
    const page = await fetch(app.link);
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain('https://connect.facebook.net');
    const html = await page.text();
    expect(html).toContain('Continue with Facebook');
    expect(html).not.toContain('id="phone"');
  });

  browserIt(
    'in a browser: Continue with Facebook, Meta’s signup, and the page shows the number Graph reports',
    async () => {
      const app = await createApp('Browser signup shop');
      const waba = id();
      const number = id();
      const fake = fakeFacebook(await signupCode(waba, number, '+49 151 1234 5678'), waba, number);
      const page = await browser.newPage();
      try {
        await page.route('https://connect.facebook.net/**', (r) =>
          r.fulfill({ contentType: 'application/javascript', body: fake.sdk }),
        );
        await page.route('https://www.facebook.com/**', (r) =>
          r.fulfill({ contentType: 'text/html', body: fake.frame }),
        );
        expect((await page.goto(app.link))?.status()).toBe(200);
        await page.waitForFunction('typeof FB !== "undefined"');
        await page.click('#connect');
        await page.waitForSelector('#result:has-text("Connected")');
        expect(await page.textContent('#result')).toBe('Connected: +4915112345678');
      } finally {
        await page.close();
      }
      expect(await appRow(app.id)).toEqual({
        status: 'ACTIVE',
        phone: '4915112345678',
        waba_id: waba,
        phone_number_id: number,
      });
    },
  );

  it('a genuine signup connects the number Graph reports; the app is subscribed and the number registered', async () => {
    const app = await createApp('Genuine signup shop');
    const waba = id();
    const number = id();
    const code = await signupCode(waba, number, '+1 555-000-1234');
    const res = await call('POST', app.signupPath, { body: { code, waba_id: waba, phone_number_id: number } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ACTIVE', phone: '15550001234', waba_id: waba });
    expect(await appRow(app.id)).toEqual({
      status: 'ACTIVE',
      phone: '15550001234',
      waba_id: waba,
      phone_number_id: number,
    });

    const record = (await sandbox('GET', '/signups')).body;
    expect(record.subscribed_apps[waba]).toEqual(['sandbox-app-id']);
    expect(record.registered).toContainEqual({ phone_number_id: number, pin: '000000' });
  });

  it('a code granting one business account cannot connect another business’s account or number', async () => {
    // Another business's WABA and number, known to the channel.
    const victimWaba = id();
    const victimNumber = id();
    await signupCode(victimWaba, victimNumber, '+44 7700 900123');

    const app = await createApp('Forged signup shop');
    const ownWaba = id();
    const ownNumber = id();
    const forged = await call('POST', app.signupPath, {
      body: { code: await signupCode(ownWaba, ownNumber), waba_id: victimWaba, phone_number_id: victimNumber },
    });
    expectProblem(forged, 403, '/problems/signup-not-granted');

    // Its own account with the other business's number.
    const mixed = await call('POST', app.signupPath, {
      body: { code: await signupCode(ownWaba, ownNumber), waba_id: ownWaba, phone_number_id: victimNumber },
    });
    expectProblem(mixed, 403, '/problems/signup-not-granted');

    expect(await appRow(app.id)).toEqual({ status: 'INACTIVE', phone: null, waba_id: null, phone_number_id: null });
    const record = (await sandbox('GET', '/signups')).body;
    expect(record.subscribed_apps[victimWaba]).toBeUndefined();
    expect(record.registered.map((r: { phone_number_id: string }) => r.phone_number_id)).not.toContain(victimNumber);
  });

  it('a code works once; a made-up code connects nothing', async () => {
    const app = await createApp('Code reuse shop');
    const waba = id();
    const number = id();
    const code = await signupCode(waba, number);
    // Spent on a refused claim...
    expectProblem(
      await call('POST', app.signupPath, { body: { code, waba_id: id(), phone_number_id: number } }),
      403,
      '/problems/signup-not-granted',
    );
    // ...it cannot be used again, even for what it granted.
    expectProblem(
      await call('POST', app.signupPath, { body: { code, waba_id: waba, phone_number_id: number } }),
      422,
      '/problems/signup-code-invalid',
    );
    expectProblem(
      await call('POST', app.signupPath, { body: { code: 'AQBx-made-up', waba_id: waba, phone_number_id: number } }),
      422,
      '/problems/signup-code-invalid',
    );
    expectProblem(
      await call('POST', app.signupPath, { body: { waba_id: waba, phone_number_id: number, phone: '15550001234' } }),
      400,
      '/problems/validation-error',
    );
    expect((await appRow(app.id)).status).toBe('INACTIVE');
  });

  it('a number already connected to another app is refused before the code is spent', async () => {
    const first = await createApp('First owner shop');
    const waba = id();
    const number = id();
    const ok = await call('POST', first.signupPath, {
      body: { code: await signupCode(waba, number), waba_id: waba, phone_number_id: number },
    });
    expect(ok.status).toBe(200);

    const second = await createApp('Second owner shop');
    const code = await signupCode(waba, number);
    expectProblem(
      await call('POST', second.signupPath, { body: { code, waba_id: waba, phone_number_id: number } }),
      409,
      '/problems/number-already-connected',
    );
    expect((await appRow(second.id)).status).toBe('INACTIVE');
    // The link of the connected app is spent.
    expectProblem(
      await call('POST', first.signupPath, { body: { code, waba_id: waba, phone_number_id: number } }),
      410,
      '/problems/link-used',
    );
  });
});
