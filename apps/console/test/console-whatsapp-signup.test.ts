import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ApiFactory } from '../../../test/support/factories';
import { fakeFacebook } from '../../../test/support/fake-facebook';
import { Platform, startPlatform } from '../../../test/support/platform';
import {
  accessibilityViolations,
  browserIt,
  buildConsoleIfStale,
  consoleAccount,
  CONSOLE_DIST,
  createConsoleUser,
  launchBrowser,
  openPage,
  recordDialogs,
  signIn,
} from '../../../test/support/console-browser';

/**
 * "Connect WhatsApp" on the connections page in cloud mode, against the sandbox's emulation of
 * Meta's embedded signup: the console opens the onboarding page in a window of its own, the
 * business goes through Meta's popup there (served in place of facebook.com), the gateway
 * completes the signup with Graph (the sandbox), and the console links the new number.
 */
describe('console in a browser: Connect WhatsApp through the embedded signup', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let browser: Browser | undefined;
  let context: BrowserContext;
  let page: Page;
  let dialogs: string[];

  beforeAll(async () => {
    buildConsoleIfStale();
    platform = await startPlatform({
      suite: 'console-whatsapp-signup',
      services: ['sandbox', 'gateway', 'api'],
      env: { CONSOLE_DIST_DIR: CONSOLE_DIST, WHATSAPP_MODE: 'cloud', WHATSAPP_APP_ID: 'sandbox-app-id' },
    });
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    const user = await factory.user('system', { balance: 5 });
    const account = await consoleAccount(platform.infra.databaseUrl, 'Signup shop', user.userId);
    const email = await createConsoleUser(platform.infra.databaseUrl, account.accountId, 'manager');
    browser = await launchBrowser();
    if (browser) {
      context = await browser.newContext({ viewport: { width: 1200, height: 760 } });
      page = await context.newPage();
      dialogs = recordDialogs(page);
      await signIn(page, platform.urls.gateway, email);
    }
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await factory?.close();
    await platform?.stop();
  });

  browserIt('opens the signup, completes it in Meta’s popup and shows the new number as a connection', async () => {
    const wabaId = String(200000000000000 + Math.floor(Math.random() * 1e9));
    const phoneNumberId = String(300000000000000 + Math.floor(Math.random() * 1e9));
    // The business will choose this account and number in Meta's popup: the code Meta hands back.
    const issued = await fetch(`${platform.urls.sandbox}/_sandbox/whatsapp/signups`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        waba_id: wabaId,
        phone_number_id: phoneNumberId,
        display_phone_number: '+49 151 1234 5678',
      }),
    });
    expect(issued.status).toBe(201);
    const fake = fakeFacebook(((await issued.json()) as { code: string }).code, wabaId, phoneNumberId);
    await context.route('https://connect.facebook.net/**', (r) =>
      r.fulfill({ contentType: 'application/javascript', body: fake.sdk }),
    );
    await context.route('https://www.facebook.com/**', (r) =>
      r.fulfill({ contentType: 'text/html', body: fake.frame }),
    );

    await openPage(page, '/console/connections', 'Connections');
    await page.getByLabel('WhatsApp app name').fill('Signup shop support');
    const [signup] = await Promise.all([
      context.waitForEvent('page'),
      page.getByRole('button', { name: 'Connect WhatsApp' }).click(),
    ]);
    await signup.waitForURL(/\/api\/v1\/onboarding\/[0-9a-f-]{36}\?t=/);
    await signup.waitForFunction('typeof FB !== "undefined"');
    await signup.getByRole('button', { name: 'Continue with Facebook' }).click();
    await signup.locator('#result').filter({ hasText: 'Connected' }).waitFor();
    expect(await signup.textContent('#result')).toBe('Connected: +4915112345678');
    await signup.close();

    await page.getByRole('status').filter({ hasText: 'WhatsApp number +4915112345678 connected.' }).waitFor();
    const row = page.getByRole('table', { name: 'Connections' }).getByRole('row').filter({ hasText: 'whatsapp' });
    await row.getByText('Active', { exact: true }).waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(dialogs).toEqual([]);

    const [app] = (await factory.dataSource.query(
      `SELECT status, phone, waba_id, phone_number_id FROM apps WHERE name = 'Signup shop support'`,
    )) as Record<string, string>[];
    expect(app).toEqual({ status: 'ACTIVE', phone: '4915112345678', waba_id: wabaId, phone_number_id: phoneNumberId });
  });
});
