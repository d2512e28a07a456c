// The demo's console owner (pnpm stack): an owner of the demo gateway account with a password
// kept in .data/console-demo.json, so every start prints a sign-in that works.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { createDataSource } from '@app/database';
import { AccountsRepository } from '../apps/gateway/src/accounts/accounts.repository';
import { ConsoleUsersRepository } from '../apps/gateway/src/console/console-users.repository';
import { hashPassword } from '../apps/gateway/src/console/passwords';
import { gatewaySchema } from '../apps/gateway/src/database/schema';

export const CONSOLE_DEMO_EMAIL = 'owner@demo.example';

/** Makes sure the demo account has its console owner with the saved password; the lines to print. */
export async function consoleDemoOwner(databaseUrl: string, demoFile: string, gatewayUrl: string): Promise<string[]> {
  const { accountToken } = JSON.parse(readFileSync(demoFile, 'utf8')) as { accountToken?: string };
  if (!accountToken) return [];
  const file = join(dirname(demoFile), 'console-demo.json');
  const saved = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { password?: string }) : {};
  const password = saved.password ?? randomBytes(12).toString('base64url');
  const ds = createDataSource(databaseUrl, gatewaySchema, 2);
  await ds.initialize();
  try {
    const account = await new AccountsRepository(ds).findByToken(accountToken);
    if (!account) return [];
    await new ConsoleUsersRepository(ds).ensureOwner(account.id, CONSOLE_DEMO_EMAIL, await hashPassword(password));
  } finally {
    await ds.destroy();
  }
  writeFileSync(file, JSON.stringify({ email: CONSOLE_DEMO_EMAIL, password }, null, 2), { mode: 0o600 });
  return [`Console: ${gatewayUrl}/console/`, `  sign in as ${CONSOLE_DEMO_EMAIL} / ${password}   (also in ${file})`];
}
