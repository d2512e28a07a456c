import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import type { Browser, Page } from 'playwright-core';
import { importContacts } from '../../../test/support/campaigns';
import { useCampaignsPlatform } from '../../../test/support/campaigns-platform';
import { sandboxControl } from '../../../test/support/sandbox';
import {
  accessibilityViolations,
  accountIdOf,
  browserIt,
  buildConsoleIfStale,
  createConsoleUser,
  launchBrowser,
  openPage,
  recordDialogs,
  screenshot,
  signIn,
  waitFor,
} from '../../../test/support/console-browser';

/**
 * The console drives a campaign end to end on the real services and channel emulators: built,
 * estimated and launched in the browser, followed live to completion, its report downloaded; then a
 * webhook delivery of it is replayed from the webhooks page.
 */
describe('console in a browser: campaigns and webhooks', () => {
  const suite = useCampaignsPlatform('console-campaigns');
  let browser: Browser | undefined;
  let page: Page;
  let dialogs: string[];

  beforeAll(async () => {
    buildConsoleIfStale();
    const accountId = await accountIdOf(suite.platform.infra.databaseUrl, suite.user.userId);
    const email = await createConsoleUser(suite.platform.infra.databaseUrl, accountId, 'manager');
    await importContacts(
      suite.gateway,
      Array.from({ length: 12 }, (_, i) => ({
        external_id: `shopper-${i + 1}`,
        name: `Shopper ${i + 1}`,
        identities: { whatsapp: `55119876${String(50_000 + i).padStart(5, '0')}` },
        lists: ['spring'],
      })),
    );
    browser = await launchBrowser();
    if (browser) {
      const context = await browser.newContext({ viewport: { width: 1200, height: 760 }, acceptDownloads: true });
      page = await context.newPage();
      dialogs = recordDialogs(page);
      await signIn(page, suite.platform.urls.gateway, email);
    }
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
  });

  browserIt('builds, estimates and launches a campaign, watches it complete and downloads its report', async () => {
    await openPage(page, '/console/campaigns', 'Campaigns');
    await page.getByRole('link', { name: 'New campaign' }).click();
    await page.getByRole('heading', { level: 1, name: 'New campaign' }).waitFor();
    await page.getByLabel('Name').fill('Spring sale');
    await page.getByLabel('Audience kind').selectOption('list');
    await page.getByRole('textbox', { name: 'Audience', exact: true }).fill('spring');
    await page.getByLabel('Template', { exact: true }).fill('promo');
    await page.getByLabel('Language code').fill('en');
    await page.getByLabel('Template parameters (one per line)').fill('{{contact.name}}');
    await page.getByLabel('Rate (messages per second)').fill('50');
    await page.getByLabel('Budget').fill('10');
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'campaign-builder');
    await page.getByRole('button', { name: 'Save draft' }).click();

    await page.getByRole('heading', { level: 1, name: 'Spring sale' }).waitFor();
    await page.getByTestId('campaign-state').filter({ hasText: 'Draft' }).waitFor();
    await page.getByRole('button', { name: 'Estimate' }).click();
    const estimate = page.getByTestId('estimate');
    await estimate.waitFor();
    expect(
      await estimate.getByText('Recipients', { exact: true }).locator('xpath=following-sibling::dd').textContent(),
    ).toBe('12');

    await page.getByRole('button', { name: 'Launch' }).click();
    // Followed live: no reload, the page polls while the campaign runs.
    await page.getByTestId('campaign-state').filter({ hasText: 'Completed' }).waitFor({ timeout: 120_000 });
    expect(await page.getByRole('progressbar', { name: 'Progress' }).getAttribute('value')).toBe('12');
    await screenshot(page, 'campaign');
    expect(await accessibilityViolations(page)).toEqual([]);

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download report (CSV)' }).click(),
    ]);
    const rows = parse(readFileSync((await download.path()) as string, 'utf8'), { columns: true }) as Record<
      string,
      string
    >[];
    expect(rows).toHaveLength(12);
    expect(new Set(rows.map((r) => r.external_id))).toEqual(
      new Set(Array.from({ length: 12 }, (_, i) => `shopper-${i + 1}`)),
    );
    expect(dialogs).toEqual([]);
  });

  browserIt("replays a webhook delivery from the subscription's delivery log", async () => {
    await waitFor(
      () => suite.endpoint.events.some((e) => e.type === 'campaign.completed'),
      60_000,
      'the completed event',
    );
    const before = suite.endpoint.events.length;
    await openPage(page, '/console/webhooks', 'Webhooks');
    await page.getByRole('button', { name: 'Deliveries' }).first().click();
    const deliveries = page.getByTestId('deliveries');
    const replay = deliveries.getByRole('button', { name: /^Replay delivery / }).first();
    await replay.waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'webhooks');
    await replay.click();
    await page.getByRole('status').filter({ hasText: 'sent again' }).waitFor();
    await waitFor(() => suite.endpoint.events.length > before, 60_000, 'the replayed delivery');
  });

  browserIt("shows a customer's message with markup as text, never running it, and replies to it", async () => {
    const text = `<img src=x onerror="alert('msg')"><script>alert('msg')</script> where is my order?`;
    await sandboxControl(suite.platform.urls.sandbox, 'telegram/inbound', { bot: suite.bot.token, from: '7301', text });
    const conversation = await waitFor(
      async () => {
        const res = await suite.gateway('GET', '/v1/conversations?channel=telegram&limit=100');
        return (
          (res.body.data as { id: string; contact: { address: string } }[]).find((c) => c.contact.address === '7301') ??
          false
        );
      },
      30_000,
      'the conversation with 7301',
    );
    await openPage(page, '/console/conversations', 'Conversations');
    await page.getByRole('link').filter({ hasText: /./ }).first().waitFor();
    await openPage(page, `/console/conversations/${conversation.id}`);
    const thread = page.getByTestId('thread');
    await thread.getByText(text).waitFor();
    expect(await thread.locator('img, script').count()).toBe(0);
    await page.getByLabel('Reply').fill('It ships today.');
    await page.getByRole('button', { name: 'Send reply' }).click();
    await thread.getByText('It ships today.').waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'conversation');
    expect(dialogs).toEqual([]);
  });
});
