import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ApiFactory } from '../../../test/support/factories';
import { Platform, startPlatform } from '../../../test/support/platform';
import {
  accessibilityViolations,
  browserIt,
  buildConsoleIfStale,
  consoleAccount,
  CONSOLE_DIST,
  CONSOLE_PASSWORD,
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

  browserIt('connects WhatsApp from the connections page through the embedded signup in its own window', async () => {
    await openPage(page, '/console/connections', 'Connections');
    await page.getByLabel('WhatsApp app name').fill('Tea shop support');
    const [signup] = await Promise.all([
      context.waitForEvent('page'),
      page.getByRole('button', { name: 'Connect WhatsApp' }).click(),
    ]);
    await signup.waitForURL(/\/api\/v1\/onboarding\/[0-9a-f-]{36}\?t=/);
    await page.getByRole('status').filter({ hasText: 'Waiting for the signup' }).waitFor();
    // The sandbox's signup: the business connects its number on the page the link opens.
    await signup.getByLabel('WhatsApp number').fill('5511987650002');
    await signup.getByRole('button', { name: 'Connect', exact: true }).click();
    await signup.locator('#result').waitFor();
    await signup.close();
    await page.getByRole('status').filter({ hasText: 'WhatsApp number +5511987650002 connected.' }).waitFor();
    const row = page.getByRole('table', { name: 'Connections' }).getByRole('row').filter({ hasText: 'whatsapp' });
    await row.getByText('Active', { exact: true }).waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
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

  browserIt("refuses a change from the console's own origin without the session's CSRF token", async () => {
    await openPage(page, '/console/contacts', 'Contacts');
    const answers = await page.evaluate<[number, string][]>(`(async () => {
      const post = (headers) => fetch('/v1/contacts', {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ external_id: 'csrf-1', name: 'Planted', identities: { telegram: '700100999' } }),
      });
      const signOut = await fetch('/console/api/session', { method: 'DELETE', credentials: 'same-origin' });
      const answers = [];
      for (const res of [await post({}), await post({ 'x-csrf-token': 'not-the-token' }), signOut]) {
        answers.push([res.status, (await res.json()).type]);
      }
      return answers;
    })()`);
    expect(answers).toEqual([
      [403, expect.stringMatching(/csrf$/)],
      [403, expect.stringMatching(/csrf$/)],
      [403, expect.stringMatching(/csrf$/)],
    ]);
    expect((await v1('GET', '/v1/contacts/ext:csrf-1')).status).toBe(404);
    // The session lives on (the sign-out was refused), and the same change with its token is taken.
    const taken = await page.evaluate<number>(`(async () => {
      const { csrf_token } = await (await fetch('/console/api/session')).json();
      const res = await fetch('/v1/contacts', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': csrf_token },
        body: JSON.stringify({ external_id: 'csrf-2', name: 'With token', identities: { telegram: '700100998' } }),
      });
      return res.status;
    })()`);
    expect(taken).toBe(201);
  });

  browserIt("answers another account's ids with 403 or 404 and shows a not-found state, none of its data", async () => {
    const rival = await consoleAccount(
      platform.infra.databaseUrl,
      'Rival Ltd',
      (await factory.user('system', { balance: 5 })).userId,
    );
    const contact = await v1(
      'POST',
      '/v1/contacts',
      { external_id: 'rival-1', name: 'Rival Customer', identities: { telegram: '700100300' }, lists: ['rivals'] },
      rival.token,
    );
    const campaign = await v1(
      'POST',
      '/v1/campaigns',
      {
        name: 'Rival sale',
        content: { type: 'text', text: 'Rival offer' },
        audience: { list: 'rivals' },
        channels: ['telegram'],
      },
      rival.token,
    );
    expect([contact.status, campaign.status]).toEqual([201, 201]);
    const rivalContact = contact.body.id as string;
    const rivalCampaign = campaign.body.id as string;
    // The other account's owner, signed in over HTTP: its user list shows what the page may not change.
    const rivalEmail = await createConsoleUser(platform.infra.databaseUrl, rival.accountId, 'owner');
    const signedIn = await fetch(`${gateway}/console/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: rivalEmail, password: CONSOLE_PASSWORD }),
    });
    expect(signedIn.status).toBe(200);
    const rivalCookie = (signedIn.headers.get('set-cookie') ?? '').split(';')[0];
    const roleOf = async () => {
      const res = await fetch(`${gateway}/console/api/users`, { headers: { cookie: rivalCookie } });
      const users = (await res.json()) as { id: string; email: string; role: string }[];
      return users.find((u) => u.email === rivalEmail) ?? { id: '', role: `none (${res.status})` };
    };
    const rivalUser = (await roleOf()).id;

    for (const [path, heading] of [
      [`/console/contacts/${rivalContact}`, 'Contact'],
      [`/console/campaigns/${rivalCampaign}`, 'Not found'],
    ]) {
      await openPage(page, path, heading);
      await page.getByTestId('not-found').waitFor();
      expect(await page.locator('main').textContent()).not.toMatch(/Rival/);
    }
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'not-found');

    // From the page itself, with the session's CSRF token: no read or change reaches the other account.
    const calls: [string, string, unknown?][] = [
      ['GET', `/v1/contacts/${rivalContact}`],
      ['PATCH', `/v1/contacts/${rivalContact}`, { name: 'Taken over' }],
      ['DELETE', `/v1/contacts/${rivalContact}`],
      ['GET', `/v1/campaigns/${rivalCampaign}`],
      ['PATCH', `/v1/campaigns/${rivalCampaign}`, { name: 'Taken over' }],
      ['POST', `/v1/campaigns/${rivalCampaign}/launch`],
      ['DELETE', `/v1/campaigns/${rivalCampaign}`],
      ['PATCH', `/console/api/users/${rivalUser}`, { role: 'viewer' }],
      ['DELETE', `/console/api/users/${rivalUser}`],
    ];
    const answers = await page.evaluate<string[]>(`(async () => {
      const { csrf_token } = await (await fetch('/console/api/session')).json();
      const out = [];
      for (const [method, path, body] of ${JSON.stringify(calls)}) {
        const headers = { 'x-csrf-token': csrf_token, ...(body ? { 'content-type': 'application/json' } : {}) };
        const res = await fetch(path, { method, headers, body: body ? JSON.stringify(body) : undefined });
        const text = await res.text();
        out.push(method + ' ' + path + ' ' + res.status + (text.includes('Rival') ? ' with its data' : ''));
      }
      return out;
    })()`);
    expect(answers.filter((a) => !/ (403|404)$/.test(a))).toEqual([]);

    // Nothing of the other account changed.
    const still = await v1('GET', `/v1/contacts/${rivalContact}`, undefined, rival.token);
    const draft = await v1('GET', `/v1/campaigns/${rivalCampaign}`, undefined, rival.token);
    expect([still.body.name, draft.body.name, draft.body.state, (await roleOf()).role]).toEqual([
      'Rival Customer',
      'Rival sale',
      'draft',
      'owner',
    ]);
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
