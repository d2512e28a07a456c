import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ApiFactory } from '../../../test/support/factories';
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
  screenshot,
  signIn,
} from '../../../test/support/console-browser';

const XSS = `<img src=x onerror="alert('name')"><script>alert('script')</script> & Co`;

/** The console app in a real browser against the api and the gateway: signing in, tokens, imports, every page. */
describe('console in a browser: sign-in, tokens, imports, pages', () => {
  let platform: Platform;
  let factory: ApiFactory;
  let browser: Browser | undefined;
  let context: BrowserContext;
  let page: Page;
  let dialogs: string[];
  let gateway: string;
  let token: string;
  let ownerEmail: string;
  let contactId: string;

  const v1 = async (method: string, path: string, body?: unknown, bearer = token) => {
    const res = await fetch(`${gateway}${path}`, {
      method,
      headers: { authorization: `Bearer ${bearer}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: (await res.json().catch(() => ({}))) as Record<string, unknown> };
  };

  beforeAll(async () => {
    buildConsoleIfStale();
    platform = await startPlatform({
      suite: 'console-pages',
      services: ['api', 'gateway'],
      env: { CONSOLE_DIST_DIR: CONSOLE_DIST },
    });
    gateway = platform.urls.gateway;
    factory = await ApiFactory.connect(platform.infra.databaseUrl);
    const user = await factory.user('system', { balance: 25 });
    const account = await consoleAccount(platform.infra.databaseUrl, 'Tea <Shop> & Co', user.userId);
    token = account.token;
    ownerEmail = await createConsoleUser(platform.infra.databaseUrl, account.accountId, 'owner');
    const contact = await v1('POST', '/v1/contacts', {
      external_id: 'xss-1',
      name: XSS,
      identities: { telegram: '700100200' },
      lists: ['vip'],
    });
    expect(contact.status).toBe(201);
    contactId = contact.body.id as string;
    browser = await launchBrowser();
    if (browser) {
      context = await browser.newContext({ viewport: { width: 1200, height: 760 }, acceptDownloads: true });
      page = await context.newPage();
      dialogs = recordDialogs(page);
    }
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await factory?.close();
    await platform?.stop();
  });

  browserIt('signs in with the sign-in form; nothing but the language is kept in the browser', async () => {
    const first = await page.goto(`${gateway}/console/`);
    expect(first?.status()).toBe(200);
    expect(first?.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.getByRole('heading', { level: 1, name: 'Sign in to the console' }).waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'sign-in');

    await page.getByLabel('Email').fill(ownerEmail);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();

    await signIn(page, gateway, ownerEmail);
    await page.getByText('Tea <Shop> & Co').waitFor();
    // The session cookie is HttpOnly and the CSRF token lives in memory only.
    expect(await page.evaluate<string>('document.cookie')).not.toContain('console_session');
    expect(await page.evaluate<string[]>('Object.keys(localStorage)')).toEqual([]);

    await page.getByLabel('Language').selectOption('ru');
    await page.getByRole('heading', { level: 1, name: 'Обзор' }).waitFor();
    expect(await page.evaluate<Record<string, string>>('({ ...localStorage })')).toEqual({ 'console.locale': 'ru' });
    await page.getByLabel('Язык').selectOption('en');
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();

    // Reloading keeps the session: the CSRF token is fetched again.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  });

  browserIt('creates a token shown once, which works, and revokes it, after which it is refused', async () => {
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'API tokens' }).click();
    await page.getByRole('heading', { level: 1, name: 'API tokens' }).waitFor();
    await page.getByLabel('Label').fill('CRM sync');
    await page.getByRole('button', { name: 'Create token' }).click();
    const created = (await page.getByTestId('new-token').textContent()) ?? '';
    expect(created).toMatch(/^gk_/);
    expect((await v1('GET', '/v1/contacts?limit=1', undefined, created)).status).toBe(200);
    await page.getByRole('cell', { name: 'CRM sync', exact: true }).waitFor();
    await screenshot(page, 'tokens');

    await page.getByRole('button', { name: 'Revoke CRM sync' }).click();
    await page.getByRole('button', { name: 'Confirm: revoke CRM sync' }).click();
    await page.getByRole('cell', { name: 'CRM sync', exact: true }).waitFor({ state: 'detached' });
    expect((await v1('GET', '/v1/contacts?limit=1', undefined, created)).status).toBe(401);
  });

  browserIt('imports a 1,000-row CSV with a live progress bar, then shows the rejection report', async () => {
    const rows = ['external_id,name,telegram,lists'];
    for (let i = 1; i <= 1000; i++) {
      // Every 100th row has neither an address nor... a valid one: it is rejected and reported.
      const address = i % 100 === 0 ? 'not-a-chat' : String(800_000_000 + i);
      rows.push(`imp-${i},Customer ${i},${address},imported`);
    }
    await openPage(page, '/console/imports', 'Imports');
    await page.getByLabel('File', { exact: true }).setInputFiles({
      name: 'contacts.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(`${rows.join('\n')}\n`),
    });
    await page.getByRole('button', { name: 'Start import' }).click();
    await page.getByTestId('import-state').filter({ hasText: 'Completed' }).waitFor({ timeout: 120_000 });
    const bar = page.getByRole('progressbar', { name: 'Rows read' });
    expect(await bar.getAttribute('value')).toBe('1000');
    expect(await bar.getAttribute('max')).toBe('1000');
    const report = page.getByTestId('rejections');
    await report.getByRole('cell', { name: 'imp-100', exact: true }).waitFor();
    expect(await report.locator('tbody tr').count()).toBe(10);
    await screenshot(page, 'imports');

    await openPage(page, '/console/contacts', 'Contacts');
    await page.getByLabel('List', { exact: true }).fill('imported');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByRole('link', { name: 'Customer 1', exact: true }).waitFor();
    // Paged: 50 rows at a time, never the whole list.
    expect(await page.locator('tbody tr').count()).toBe(50);
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByText('Page 2').waitFor();
  });

  browserIt("shows a contact's name with markup as text and never runs it", async () => {
    await openPage(page, '/console/contacts', 'Contacts');
    await page.getByLabel('Search').fill('xss-1');
    await page.getByLabel('List', { exact: true }).fill('');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByRole('link', { name: XSS }).click();
    await page.getByRole('heading', { level: 1, name: XSS }).waitFor();
    expect(await page.locator('main img').count()).toBe(0);
    expect(await page.locator('main script').count()).toBe(0);
    await screenshot(page, 'contact');
    expect(dialogs).toEqual([]);
  });

  browserIt('passes axe-core on every page (no serious or critical violation)', async () => {
    const pages: [string, string, string][] = [
      ['/console/', 'Overview', 'overview'],
      ['/console/connections', 'Connections', 'connections'],
      ['/console/tokens', 'API tokens', 'tokens'],
      ['/console/templates', 'Templates', 'templates'],
      ['/console/contacts', 'Contacts', 'contacts'],
      [`/console/contacts/${contactId}`, XSS, 'contact'],
      ['/console/imports', 'Imports', 'imports-empty'],
      ['/console/campaigns', 'Campaigns', 'campaigns'],
      ['/console/campaigns/new', 'New campaign', 'campaign-builder'],
      ['/console/messages', 'Messages', 'messages'],
      ['/console/conversations', 'Conversations', 'conversations'],
      ['/console/usage', 'Usage', 'usage'],
      ['/console/billing', 'Billing', 'billing'],
      ['/console/webhooks', 'Webhooks', 'webhooks'],
      ['/console/users', 'Users', 'users'],
      ['/console/audit', 'Audit log', 'audit'],
    ];
    const found: string[] = [];
    for (const [path, heading, shot] of pages) {
      await openPage(page, path, heading);
      found.push(...(await accessibilityViolations(page)).map((v) => `${path}: ${v}`));
      if (!['tokens', 'contact', 'imports-empty'].includes(shot)) await screenshot(page, shot);
    }
    expect(found).toEqual([]);
    expect(dialogs).toEqual([]);
  });

  browserIt('signs out: the old session cookie is refused afterwards', async () => {
    const cookie = (await context.cookies(gateway)).find((c) => c.name === 'console_session');
    expect(cookie?.httpOnly).toBe(true);
    expect(cookie?.sameSite).toBe('Strict');
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in to the console' }).waitFor();
    const res = await fetch(`${gateway}/v1/contacts?limit=1`, {
      headers: { cookie: `console_session=${cookie?.value}` },
    });
    expect(res.status).toBe(401);
  });
});
