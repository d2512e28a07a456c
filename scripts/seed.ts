// The local stack's demo data: a system user with a balance, kept across restarts in .data/demo.json.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createDataSource } from '@app/database';
import { BalancesRepository } from '../apps/api/src/billing/balances.repository';
import { apiSchema } from '../apps/api/src/database/schema';
import { UsersRepository } from '../apps/api/src/users/users.repository';

export interface Demo {
  userId: string;
  token: string;
  /** What to run next, printed by the stack. */
  instructions: string[];
  /** Runs the printed request and says whether it worked (pnpm stack --smoke). */
  check(): Promise<boolean>;
}

interface Saved {
  userId: string;
  token: string;
}

export async function seedDemo(databaseUrl: string, urls: { api: string }, file: string): Promise<Demo> {
  const ds = createDataSource(databaseUrl, apiSchema, 2);
  await ds.initialize();
  let saved: Saved | undefined;
  try {
    const users = new UsersRepository(ds);
    if (existsSync(file)) {
      const s = JSON.parse(readFileSync(file, 'utf8')) as Saved;
      if (await users.findByToken(s.token)) saved = s;
    }
    if (!saved) {
      const user = await users.createUser('demo', 'system', 'USD');
      const { token } = await users.issueToken(user.id, 'local stack demo');
      await new BalancesRepository(ds).credit(user.id, 100);
      saved = { userId: user.id, token };
      writeFileSync(file, JSON.stringify(saved, null, 2), { mode: 0o600 });
    }
  } finally {
    await ds.destroy();
  }
  const { userId, token } = saved;
  const balanceUrl = `${urls.api}/api/v1/users/${userId}/balances`;
  return {
    userId,
    token,
    instructions: ['Try it:', `  curl -s -H "Authorization: Bearer ${token}" ${balanceUrl}`],
    async check() {
      const res = await fetch(balanceUrl, { headers: { Authorization: `Bearer ${token}` } });
      return res.status === 200;
    },
  };
}
