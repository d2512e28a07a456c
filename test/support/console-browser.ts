import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Browser, chromium, Page } from 'playwright-core';
import { createDataSource } from '@app/database';
import { findChromium } from '@app/testing';
import { AccountsRepository } from '../../apps/gateway/src/accounts/accounts.repository';
import { ConsoleRole } from '../../apps/gateway/src/console/console-roles';
import { ConsoleUsersRepository } from '../../apps/gateway/src/console/console-users.repository';
import { hashPassword } from '../../apps/gateway/src/console/passwords';
import { gatewaySchema } from '../../apps/gateway/src/database/schema';
import { buildConsoleIfStale, CONSOLE_DIST } from '../../scripts/console/bundle';

export { buildConsoleIfStale, CONSOLE_DIST };
export { browserIt, waitFor } from '@app/testing';

export const CONSOLE_PASSWORD = 'correct horse battery staple';
/** Where `SCREENSHOTS=1` writes each page's screenshot (docs/console.md shows them). */
const SCREENSHOT_DIR = join(__dirname, '..', '..', 'docs', 'console');

/** A headless system Chromium, or undefined without one (browserIt then skips or fails under CI). */
export async function launchBrowser(): Promise<Browser | undefined> {
  const executablePath = findChromium();
  if (!executablePath) return undefined;
  return chromium.launch({
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
}

/** A gateway account for `userId` and its bearer token, written through the gateway's repository. */
export async function consoleAccount(databaseUrl: string, name: string, userId: string) {
  const db = createDataSource(databaseUrl, gatewaySchema, 1);
  await db.initialize();
  try {
    const created = await new AccountsRepository(db).createAccount(name, userId);
    return { accountId: created.account.id, token: created.token };
  } finally {
    await db.destroy();
  }
}

/** The gateway account linked to the api user `userId`. */
export async function accountIdOf(databaseUrl: string, userId: string): Promise<string> {
  const db = createDataSource(databaseUrl, gatewaySchema, 1);
  await db.initialize();
  try {
    const rows = (await db.query(`SELECT id FROM accounts WHERE user_id = $1`, [userId])) as { id: string }[];
    return rows[0].id;
  } finally {
    await db.destroy();
  }
}

/** A console user of the account (as the CLI writes one): its email, with CONSOLE_PASSWORD. */
export async function createConsoleUser(databaseUrl: string, accountId: string, role: ConsoleRole): Promise<string> {
  const email = `${role}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const db = createDataSource(databaseUrl, gatewaySchema, 1);
  await db.initialize();
  try {
    await new ConsoleUsersRepository(db).create(accountId, email, role, await hashPassword(CONSOLE_PASSWORD));
  } finally {
    await db.destroy();
  }
  return email;
}

/** Signs in through the sign-in form and waits for the overview. */
export async function signIn(page: Page, gateway: string, email: string): Promise<void> {
  await page.goto(`${gateway}/console/`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(CONSOLE_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
}

/** Moves to a console path the way a user does, through the app's own navigation (no reload). */
export async function openPage(page: Page, path: string, heading?: string | RegExp): Promise<void> {
  await page.evaluate(
    `history.pushState(null, '', ${JSON.stringify(path)}); dispatchEvent(new PopStateEvent('popstate'))`,
  );
  await (heading ? page.getByRole('heading', { level: 1, name: heading }) : page.locator('h1')).first().waitFor();
  await page.getByRole('status').filter({ hasText: 'Loading…' }).first().waitFor({ state: 'detached' });
}

/**
 * axe-core's serious and critical violations on the page as it is now ("rule: target" each). The
 * script is evaluated through the browser's debugging protocol: the console's Content-Security-Policy
 * (script-src 'self') stays on and would refuse an injected <script> tag.
 */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate<boolean>("'axe' in window"))) {
    await page.evaluate(readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8'));
  }
  return page.evaluate<string[]>(`(async () => {
    const result = await axe.run(document);
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => v.id + ': ' + v.nodes.map((n) => JSON.stringify(n.target)).join(' '));
  })()`);
}

/** With SCREENSHOTS=1, the page as docs/console/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.SCREENSHOTS !== '1') return;
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: false });
}

/** Every browser dialog the page opens (alert, confirm, prompt), dismissed: a script run by data would show here. */
export function recordDialogs(page: Page): string[] {
  const seen: string[] = [];
  page.on('dialog', (dialog) => {
    seen.push(dialog.message());
    void dialog.dismiss();
  });
  return seen;
}
