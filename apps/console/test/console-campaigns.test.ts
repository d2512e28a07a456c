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

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Telegram chats of the content campaign's audience. */
const READERS = ['730001', '730002', '730003'];

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
    await importContacts(
      suite.gateway,
      READERS.map((chat, i) => ({
        external_id: `reader-${i + 1}`,
        name: `Reader ${i + 1}`,
        identities: { telegram: chat },
        lists: ['readers'],
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

  browserIt(
    'builds a content campaign of text with buttons to Telegram, launches it and watches it complete',
    async () => {
      await openPage(page, '/console/campaigns/new', 'New campaign');
      await page.getByLabel('Name').fill('Sunday poll');
      await page.getByLabel('Audience kind').selectOption('list');
      await page.getByRole('textbox', { name: 'Audience', exact: true }).fill('readers');
      await page.getByLabel('Message', { exact: true }).selectOption('buttons');
      // A template campaign's field is gone; the content's fields and the fallback template are there.
      await page.getByLabel('Template', { exact: true }).waitFor({ state: 'detached' });
      await page.getByLabel('Text', { exact: true }).fill('Open on Sunday?');
      await page.getByLabel('Button 1 label').fill('Yes please');
      await page.getByLabel('Button 2 label').fill('No thanks');
      await page.getByLabel('Button 2 reply ID (optional)').fill('no');
      await page.getByLabel('Fallback template (WhatsApp, closed window)').fill('promo');
      await page.getByLabel('Language code').fill('en');
      await page.getByLabel('Template parameters (one per line)').fill('{{contact.name}}');
      await page.getByRole('checkbox', { name: 'whatsapp' }).uncheck();
      await page.getByRole('checkbox', { name: 'telegram' }).check();
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.getByRole('heading', { level: 2, name: 'Content' }).evaluate((h) => h.scrollIntoView());
      await screenshot(page, 'campaign-builder-content');
      await page.getByRole('button', { name: 'Save draft' }).click();

      await page.getByRole('heading', { level: 1, name: 'Sunday poll' }).waitFor();
      const fact = (term: string) =>
        page.getByText(term, { exact: true }).locator('xpath=following-sibling::dd').first().textContent();
      expect(await fact('Message')).toBe('buttons: Open on Sunday? [Yes please | No thanks]');
      expect(await fact('Fallback template')).toBe('promo (en)');
      await page.getByRole('button', { name: 'Estimate' }).click();
      const estimate = page.getByTestId('estimate');
      await estimate.waitFor();
      expect(
        await estimate.getByText('Recipients', { exact: true }).locator('xpath=following-sibling::dd').textContent(),
      ).toBe('3');

      await page.getByRole('button', { name: 'Launch' }).click();
      await page.getByTestId('campaign-state').filter({ hasText: 'Completed' }).waitFor({ timeout: 120_000 });
      expect(await page.getByRole('progressbar', { name: 'Progress' }).getAttribute('value')).toBe('3');

      // Each reader got the text once, with both buttons and their reply ids.
      const sent = await waitFor(
        async () => {
          const res = await fetch(`${suite.platform.urls.sandbox}/_sandbox/telegram/calls?bot_id=${suite.bot.id}`);
          const got = ((await res.json()) as Json[]).filter(
            (c) => c.method === 'sendMessage' && c.outcome === 'accepted' && c.params.text === 'Open on Sunday?',
          );
          return got.length >= READERS.length ? got : false;
        },
        30_000,
        'the poll sent to every reader',
      );
      expect(sent.map((c) => String(c.params.chat_id)).sort()).toEqual(READERS);
      const keyboard = (c: Json): Json[] =>
        (typeof c.params.reply_markup === 'string'
          ? JSON.parse(c.params.reply_markup)
          : c.params.reply_markup
        ).inline_keyboard.flat();
      for (const call of sent) {
        expect(keyboard(call).map((b) => [b.text, b.callback_data])).toEqual([
          ['Yes please', 'yes_please'],
          ['No thanks', 'no'],
        ]);
      }
      expect(dialogs).toEqual([]);
    },
  );

  browserIt('builds a campaign of an image of the media library to Telegram and watches it complete', async () => {
    await openPage(page, '/console/campaigns/new', 'New campaign');
    // A file added to the media library with the session (as any change: with its CSRF token).
    const mediaId = await page.evaluate<string>(`(async () => {
      const { csrf_token } = await (await fetch('/console/api/session')).json();
      const bytes = new Uint8Array(20000).fill(7);
      bytes.set([0xff, 0xd8, 0xff, 0xe0]);
      const form = new FormData();
      form.append('file', new Blob([bytes], { type: 'image/jpeg' }), 'spring.jpg');
      const res = await fetch('/v1/media', { method: 'POST', headers: { 'x-csrf-token': csrf_token }, body: form });
      return (await res.json()).id;
    })()`);
    expect(mediaId).toMatch(/^[0-9a-f-]{36}$/);
    await page.getByLabel('Name').fill('Spring picture');
    await page.getByRole('textbox', { name: 'Audience', exact: true }).fill('readers');
    await page.getByLabel('Message', { exact: true }).selectOption('image');
    // The library's images are offered by name.
    await page.locator(`#library-images option[value="${mediaId}"][label="spring.jpg"]`).waitFor({ state: 'attached' });
    await page.getByLabel('Image (media ID)').fill(mediaId);
    await page.getByLabel('Caption').fill('Spring is here');
    await page.getByRole('checkbox', { name: 'whatsapp' }).uncheck();
    await page.getByRole('checkbox', { name: 'telegram' }).check();
    await page.getByRole('button', { name: 'Save draft' }).click();

    await page.getByRole('heading', { level: 1, name: 'Spring picture' }).waitFor();
    await page.getByRole('button', { name: 'Launch' }).click();
    await page.getByTestId('campaign-state').filter({ hasText: 'Completed' }).waitFor({ timeout: 120_000 });
    const photos = await waitFor(
      async () => {
        const res = await fetch(`${suite.platform.urls.sandbox}/_sandbox/telegram/calls?bot_id=${suite.bot.id}`);
        const got = ((await res.json()) as Json[]).filter(
          (c) => c.method === 'sendPhoto' && c.outcome === 'accepted' && c.params.caption === 'Spring is here',
        );
        return got.length >= READERS.length ? got : false;
      },
      30_000,
      'the picture sent to every reader',
    );
    expect(photos.map((c) => String(c.params.chat_id)).sort()).toEqual(READERS);
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
    // Filtered by status, the log lists only deliveries in it, a page at a time.
    await page.getByLabel('Delivery status').selectOption('SUCCEEDED');
    await deliveries.getByRole('cell', { name: 'SUCCEEDED', exact: true }).first().waitFor();
    const statuses = await deliveries.locator('tbody tr td:nth-child(3)').allTextContents();
    expect(statuses.length).toBeGreaterThan(0);
    expect(new Set(statuses)).toEqual(new Set(['SUCCEEDED']));
    expect(await deliveries.getByRole('button', { name: 'Previous page' }).isDisabled()).toBe(true);
    await replay.waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'webhooks');
    await replay.click();
    await page.getByRole('status').filter({ hasText: 'sent again' }).waitFor();
    await waitFor(() => suite.endpoint.events.length > before, 60_000, 'the replayed delivery');
  });

  browserIt("shows each WhatsApp template's quality rating from Meta on the templates page", async () => {
    // The template sync stores Meta's rating of the template as it changes.
    await suite.factory.dataSource.query(`UPDATE templates SET quality = 'RED' WHERE app_id = $1 AND name = 'promo'`, [
      suite.app.id,
    ]);
    await openPage(page, '/console/templates', 'Templates');
    const table = page.getByRole('table', { name: 'Templates' });
    const row = table.getByRole('row').filter({ has: page.getByRole('cell', { name: 'promo', exact: true }) });
    await row.first().waitFor();
    const quality = await table.getByRole('columnheader').allTextContents();
    expect((await row.getByRole('cell').allTextContents())[quality.indexOf('Quality')]).toBe('Low (red)');
    expect(await accessibilityViolations(page)).toEqual([]);
    await screenshot(page, 'templates-quality');
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
