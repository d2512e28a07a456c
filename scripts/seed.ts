// The local stack's demo: a system user with a balance, an app onboarded to a sandbox WhatsApp
// number, an approved template, and the curl line that sends it. Everything but the user goes
// through the public API, as a client would. Kept across restarts in .data/demo.json.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createDataSource } from '@app/database';
import { BalancesRepository } from '../apps/api/src/billing/balances.repository';
import { BillingService } from '../apps/api/src/billing/billing.service';
import { apiSchema } from '../apps/api/src/database/schema';
import { UsersRepository } from '../apps/api/src/users/users.repository';

export interface Demo {
  userId: string;
  token: string;
  /** What to run next, printed by the stack. */
  instructions: string[];
  /** Sends the printed message and follows it to DELIVERED (pnpm stack --smoke). */
  check(log: (line: string) => void): Promise<boolean>;
}

interface Saved {
  userId: string;
  token: string;
  appId?: number;
}

export const TEMPLATE = {
  name: 'order_update',
  language: 'en',
  category: 'UTILITY',
  body: 'Hello {{1}}, your order {{2}} is on its way.',
  body_example: 'Hello Anna, your order 1042 is on its way.',
};
const DEMO_NUMBER = '15550001234';
const RECIPIENT = '79990001122';

async function userAndToken(databaseUrl: string, file: string): Promise<Saved> {
  const ds = createDataSource(databaseUrl, apiSchema, 2);
  await ds.initialize();
  try {
    const users = new UsersRepository(ds);
    if (existsSync(file)) {
      const saved = JSON.parse(readFileSync(file, 'utf8')) as Saved;
      if (await users.findByToken(saved.token)) return saved;
    }
    const user = await users.createUser('demo', 'system', 'USD');
    const { token } = await users.issueToken(user.id, 'local stack demo');
    await new BillingService(new BalancesRepository(ds)).credit(user.id, 100);
    return { userId: user.id, token };
  } finally {
    await ds.destroy();
  }
}

export interface ApiClient {
  call<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  must<T>(res: { status: number; body: T }, what: string, ok: number[]): T;
}

/** Calls the public API under /api/v1 with a user's token, as a client would. */
export function apiClient(apiUrl: string, token: string): ApiClient {
  const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
  return {
    async call<T>(method: string, path: string, body?: unknown) {
      const res = await fetch(`${apiUrl}/api/v1${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
    },
    must<T>(res: { status: number; body: T }, what: string, ok: number[]): T {
      if (!ok.includes(res.status)) throw new Error(`${what} answered ${res.status}: ${JSON.stringify(res.body)}`);
      return res.body;
    },
  };
}

/** Creates an app and connects it to a sandbox number through its onboarding link, as the business would. */
export async function connectSandboxApp(apiUrl: string, api: ApiClient, name: string, phone: string): Promise<number> {
  const app = api.must(
    await api.call<{ id: number; embed_link_url: string }>('POST', '/wa/apps', { name }),
    'create app',
    [201],
  );
  const link = new URL(app.embed_link_url);
  const connect = await fetch(`${apiUrl}${link.pathname}/sandbox${link.search}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ phone }),
  });
  if (connect.status !== 200) throw new Error(`onboarding answered ${connect.status}: ${await connect.text()}`);
  return app.id;
}

/** Submits `template` unless the app has it, and waits until the channel approved it. */
export async function ensureApprovedTemplate(api: ApiClient, appId: number, template: typeof TEMPLATE): Promise<void> {
  type Template = { name: string; status: string };
  const list = () => api.call<Template[]>('GET', `/wa/apps/${appId}/templates`);
  if (!api.must(await list(), 'list templates', [200]).some((t) => t.name === template.name)) {
    api.must(await api.call('POST', `/wa/apps/${appId}/templates`, template), 'create template', [201]);
  }
  const deadline = Date.now() + 30_000;
  for (;;) {
    const status = api.must(await list(), 'list templates', [200]).find((t) => t.name === template.name)?.status;
    if (status === 'APPROVED') return;
    if (status === 'REJECTED' || Date.now() > deadline) throw new Error(`template ${template.name} is ${status}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

export async function seedDemo(databaseUrl: string, urls: { api: string }, file: string): Promise<Demo> {
  const saved = await userAndToken(databaseUrl, file);
  const api = `${urls.api}/api/v1`;
  const client = apiClient(urls.api, saved.token);
  const { call, must } = client;

  // An app with a connected sandbox number (through the onboarding link, as the business would).
  let appId = saved.appId;
  if (!appId || (await call('GET', `/wa/apps/${appId}`)).status !== 200) {
    appId = await connectSandboxApp(urls.api, client, 'Demo shop', DEMO_NUMBER);
  }
  writeFileSync(file, JSON.stringify({ ...saved, appId }, null, 2), { mode: 0o600 });

  // An approved template (the sandbox moderates it within seconds).
  await ensureApprovedTemplate(client, appId, TEMPLATE);

  const send = {
    phone: RECIPIENT,
    type: 'TEMPLATE',
    template: { name: TEMPLATE.name, components: { body: { values: ['Anna', '1042'] } } },
  };
  const sendUrl = `${api}/wa/apps/${appId}/messages`;
  return {
    userId: saved.userId,
    token: saved.token,
    instructions: [
      `demo app ${appId}: ACTIVE on sandbox number ${DEMO_NUMBER}, template "${TEMPLATE.name}" APPROVED, balance in USD`,
      'Send a message:',
      `  curl -s -X POST ${sendUrl} -H "Authorization: Bearer ${saved.token}" -H "Content-Type: application/json" -d '${JSON.stringify(send)}'`,
      'Follow it (the sandbox reports sent, delivered, read):',
      `  curl -s ${sendUrl}/<message id> -H "Authorization: Bearer ${saved.token}"`,
      'Balance and charges:',
      `  curl -s ${api}/users/${saved.userId}/balances -H "Authorization: Bearer ${saved.token}"`,
      `  curl -s "${api}/users/${saved.userId}/transactions?start_date=${new Date().toISOString().slice(0, 10)}" -H "Authorization: Bearer ${saved.token}"`,
      `API docs: ${urls.api}/api/docs`,
    ],
    async check(log) {
      const before = must(
        await call<{ balance: number }>('GET', `/users/${saved.userId}/balances`),
        'balance',
        [200],
      ).balance;
      const sent = must(
        await call<{ message: { id: string } }>('POST', `/wa/apps/${appId}/messages`, send),
        'send',
        [201],
      );
      log(`sent message ${sent.message.id}`);
      const until = Date.now() + 30_000;
      for (;;) {
        const m = must(
          await call<{ status: string }>('GET', `/wa/apps/${appId}/messages/${sent.message.id}`),
          'status',
          [200],
        );
        if (m.status === 'DELIVERED' || m.status === 'READ') {
          log(`message status: ${m.status}`);
          break;
        }
        if (m.status === 'FAILED' || Date.now() > until) {
          log(`message status: ${m.status}`);
          return false;
        }
        await new Promise((r) => setTimeout(r, 200));
      }
      const after = must(
        await call<{ balance: number }>('GET', `/users/${saved.userId}/balances`),
        'balance',
        [200],
      ).balance;
      log(`balance: ${before} -> ${after}`);
      return after < before;
    },
  };
}
