// The local stack's demo: a system user with a balance, an app onboarded to a sandbox WhatsApp
// number, an approved template, and the curl line that sends it; a gateway account of that user
// with the app and a sandbox Telegram bot connected, and the curl lines that send the template on
// each. Everything but the user and the account (operator CLI steps) goes through the public APIs,
// as a client would (the gateway's through the TypeScript SDK). Kept across restarts in .data/demo.json.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createDataSource } from '@app/database';
import { createGatewayClient, GatewayClient, GatewaySend, unwrap } from '@messaging-platform/sdk';
import { BalancesRepository } from '../apps/api/src/billing/balances.repository';
import { BillingService } from '../apps/api/src/billing/billing.service';
import { apiSchema } from '../apps/api/src/database/schema';
import { UsersRepository } from '../apps/api/src/users/users.repository';
import { AccountsRepository } from '../apps/gateway/src/accounts/accounts.repository';
import { gatewaySchema } from '../apps/gateway/src/database/schema';
import { registerSandboxNumber } from '../apps/api/src/cli/sandbox.commands';
import { StackRecord } from './stack-state';

export interface Demo {
  userId: string;
  token: string;
  /** What the stack records of the demo for the operator CLI. */
  record: NonNullable<StackRecord['demo']>;
  /** What to run next, printed by the stack. */
  instructions: string[];
  /** Sends the printed message and follows it to DELIVERED (pnpm stack --smoke). */
  check(log: (line: string) => void): Promise<boolean>;
}

interface Saved {
  userId: string;
  token: string;
  appId?: number;
  /** The demo gateway account's token. */
  accountToken?: string;
}

export const TEMPLATE = {
  name: 'order_update',
  language: 'en',
  category: 'UTILITY',
  body: 'Hello {{1}}, your order {{2}} is on its way.',
  body_example: 'Hello Anna, your order 1042 is on its way.',
};
/** What STOP stops: a recipient who writes STOP gets no more of these, while UTILITY still goes. */
export const MARKETING_TEMPLATE = {
  name: 'spring_sale',
  language: 'en',
  category: 'MARKETING',
  body: 'Hi {{1}}, our spring sale is on: {{2}} off everything this week. Reply STOP to opt out.',
  body_example: 'Hi Anna, our spring sale is on: 20% off everything this week. Reply STOP to opt out.',
};
const DEMO_NUMBER = '15550001234';
const RECIPIENT = '79990001122';
const TELEGRAM_CHAT = '424242';

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

/** The demo gateway account (as `pnpm cli accounts:create --user` makes it), reused while its token works. */
async function gatewayAccount(databaseUrl: string, saved: Saved): Promise<string> {
  const ds = createDataSource(databaseUrl, gatewaySchema, 2);
  await ds.initialize();
  try {
    const accounts = new AccountsRepository(ds);
    if (saved.accountToken && (await accounts.findByToken(saved.accountToken))) return saved.accountToken;
    return (await accounts.createAccount('demo shop', saved.userId)).token;
  } finally {
    await ds.destroy();
  }
}

/**
 * The account's connections: the demo app on WhatsApp, and a fresh sandbox Telegram bot (the
 * sandbox forgets its bots when it restarts, so an older bot connection is replaced).
 */
async function connectGatewayChannels(gateway: GatewayClient, sandboxUrl: string, appId: number) {
  const live = unwrap(await gateway.http.GET('/v1/connections')).filter((c) => c.state !== 'disconnected');
  const disconnect = async (id: string) =>
    unwrap(await gateway.http.DELETE('/v1/connections/{id}', { params: { path: { id } } }));
  if (!live.some((c) => c.channel === 'whatsapp' && c.app_id === appId)) {
    for (const c of live.filter((c) => c.channel === 'whatsapp')) await disconnect(c.id);
    unwrap(await gateway.http.POST('/v1/connections', { body: { channel: 'whatsapp', app_id: appId } }));
  }
  for (const c of live.filter((c) => c.channel === 'telegram')) await disconnect(c.id);
  const bot = (await (
    await fetch(`${sandboxUrl}/_sandbox/telegram/bots`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'demo_shop_bot' }),
    })
  ).json()) as { token: string };
  unwrap(await gateway.http.POST('/v1/connections', { body: { channel: 'telegram', bot_token: bot.token } }));
}

/**
 * A sandbox course platform connected to the account (the sandbox forgets its platforms when it
 * restarts, so older course connections are replaced) and a "payment" rule sending the demo
 * template on WhatsApp; returns the curl that fires a payment event as the platform would.
 */
async function connectCoursePlatform(
  gateway: GatewayClient,
  urls: { gateway: string; sandbox: string },
  token: string,
): Promise<string> {
  const live = unwrap(await gateway.http.GET('/v1/connections')).filter(
    (c) => c.channel === 'course' && c.state !== 'disconnected',
  );
  for (const c of live) unwrap(await gateway.http.DELETE('/v1/connections/{id}', { params: { path: { id: c.id } } }));
  const apiKey = 'demo-course-platform-key';
  const platform = (await (
    await fetch(`${urls.sandbox}/_sandbox/course/platforms`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: apiKey }),
    })
  ).json()) as { id: string; base_url: string };
  const course = unwrap(
    await gateway.http.POST('/v1/connections', {
      body: { channel: 'course', base_url: platform.base_url, api_key: apiKey },
    }),
  );
  unwrap(
    await gateway.http.POST('/v1/course/rules', {
      body: {
        connection_id: course.id,
        event_type: 'payment',
        channel: 'whatsapp',
        template: TEMPLATE.name,
        recipient_field: 'user.phone',
        params: ['user.first_name', 'deal.number'],
      },
    }),
  );
  const event = { type: 'payment', user: { phone: RECIPIENT, first_name: 'Anna' }, deal: { number: '1042' } };
  return [
    `  curl -s -X POST ${urls.sandbox}/_sandbox/course/platforms/${platform.id}/fire -H "Content-Type: application/json" -d '${JSON.stringify({ url: course.inbound_url, secret: course.secret, format: 'form', event })}'`,
    'What became of it, and the status events the platform received (signed):',
    `  curl -s ${urls.gateway}/v1/course/events -H "Authorization: Bearer ${token}"`,
    `  curl -s ${urls.sandbox}/_sandbox/course/platforms/${platform.id}/events`,
  ].join('\n');
}

export interface ApiClient {
  call<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  must<T>(res: { status: number; body: T }, what: string, ok: number[]): T;
}

/** Calls the public API under /api/v1 (or another base) with a token, as a client would. */
export function apiClient(apiUrl: string, token: string, base = '/api/v1'): ApiClient {
  return {
    async call<T>(method: string, path: string, body?: unknown) {
      const res = await fetch(`${apiUrl}${base}${path}`, {
        method,
        headers: {
          Authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
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

/** Follows a message's report until it reaches one of `wanted` (or FAILED, or 30 s). */
async function follow(
  read: () => Promise<{ status: string }>,
  wanted: string[],
  log: (line: string) => void,
  label: string,
): Promise<boolean> {
  const until = Date.now() + 30_000;
  for (;;) {
    const m = await read();
    if (wanted.includes(m.status) || m.status === 'FAILED' || Date.now() > until) {
      log(`${label} status: ${m.status}`);
      return wanted.includes(m.status);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** An app's tier as a user reads it: the recipients a day it allows. */
function tierText(limit: string): string {
  const perDay: Record<string, string> = {
    TIER_50: '50',
    TIER_250: '250',
    TIER_NOT_SET: '250',
    TIER_2K: '2,000',
    TIER_10K: '10,000',
    TIER_100K: '100,000',
  };
  return limit === 'TIER_UNLIMITED' ? 'tier unlimited' : `tier ${limit}: ${perDay[limit] ?? '?'} new recipients a day`;
}

export async function seedDemo(
  databaseUrl: string,
  urls: { api: string; gateway: string; sandbox: string },
  file: string,
): Promise<Demo> {
  const saved = await userAndToken(databaseUrl, file);
  const api = `${urls.api}/api/v1`;
  const client = apiClient(urls.api, saved.token);
  const { call, must } = client;

  // An app with a connected sandbox number (through the onboarding link, as the business would).
  let appId = saved.appId;
  if (!appId || (await call('GET', `/wa/apps/${appId}`)).status !== 200) {
    appId = await connectSandboxApp(urls.api, client, 'Demo shop', DEMO_NUMBER);
  }
  const app = must(
    await call<{ phone: string; waba_id: string; phone_number_id: string; message_limit: string }>(
      'GET',
      `/wa/apps/${appId}`,
    ),
    'app',
    [200],
  );
  // The sandbox is told of the number (it forgets its numbers when it restarts): its callbacks
  // (a recipient's STOP, a tier change) then name the app's business account.
  await registerSandboxNumber(urls.sandbox, app);
  // Approved templates (the sandbox moderates them within seconds): a UTILITY one and a MARKETING one.
  await ensureApprovedTemplate(client, appId, TEMPLATE);
  await ensureApprovedTemplate(client, appId, MARKETING_TEMPLATE);

  // A gateway account of the same user, with the app and a Telegram bot connected.
  const accountToken = await gatewayAccount(databaseUrl, saved);
  writeFileSync(file, JSON.stringify({ ...saved, appId, accountToken }, null, 2), { mode: 0o600 });
  // The gateway through the SDK, as a client app would.
  const gateway = createGatewayClient({ baseUrl: urls.gateway, token: accountToken });
  await connectGatewayChannels(gateway, urls.sandbox, appId);
  const courseCurl = await connectCoursePlatform(gateway, urls, accountToken);
  const gwSend = (channel: GatewaySend['channel'], to: string): GatewaySend => ({
    channel,
    to,
    template: TEMPLATE.name,
    params: ['Anna', '1042'],
  });
  const gwCurl = (channel: GatewaySend['channel'], to: string) =>
    `  curl -s -X POST ${urls.gateway}/v1/messages -H "Authorization: Bearer ${accountToken}" -H "Content-Type: application/json" -d '${JSON.stringify(gwSend(channel, to))}'`;

  const send = {
    phone: RECIPIENT,
    type: 'TEMPLATE',
    template: { name: TEMPLATE.name, components: { body: { values: ['Anna', '1042'] } } },
  };
  const marketing = {
    phone: RECIPIENT,
    type: 'TEMPLATE',
    template: { name: MARKETING_TEMPLATE.name, components: { body: { values: ['Anna', '20%'] } } },
  };
  const sendUrl = `${api}/wa/apps/${appId}/messages`;
  const balance = must(
    await call<{ balance: number }>('GET', `/users/${saved.userId}/balances`),
    'balance',
    [200],
  ).balance;
  // The CLI finds this stack by its data directory: one moved by STACK_DATA_DIR is named.
  const cli = `${process.env.STACK_DATA_DIR ? `STACK_DATA_DIR=${process.env.STACK_DATA_DIR} ` : ''}pnpm -s cli`;
  return {
    userId: saved.userId,
    token: saved.token,
    record: {
      user_id: saved.userId,
      app_id: appId,
      phone: app.phone,
      phone_number_id: app.phone_number_id,
      waba_id: app.waba_id,
    },
    instructions: [
      `demo app ${appId}: ACTIVE on sandbox number ${DEMO_NUMBER} (phone_number_id ${app.phone_number_id}, waba_id ${app.waba_id}), ${tierText(app.message_limit)}, templates "${TEMPLATE.name}" (UTILITY) and "${MARKETING_TEMPLATE.name}" (MARKETING) APPROVED, balance ${balance} USD`,
      'Send a message:',
      `  curl -s -X POST ${sendUrl} -H "Authorization: Bearer ${saved.token}" -H "Content-Type: application/json" -d '${JSON.stringify(send)}'`,
      'Follow it (the sandbox reports sent, delivered, read):',
      `  curl -s ${sendUrl}/<message id> -H "Authorization: Bearer ${saved.token}"`,
      'Send the MARKETING template; then the recipient writes STOP, and it is refused (422 recipient-opted-out) while the UTILITY one still goes (START opts back in):',
      `  curl -s -X POST ${sendUrl} -H "Authorization: Bearer ${saved.token}" -H "Content-Type: application/json" -d '${JSON.stringify(marketing)}'`,
      `  curl -s -X POST ${urls.sandbox}/_sandbox/whatsapp/inbound -H "Content-Type: application/json" -d '${JSON.stringify({ phone_number_id: app.phone_number_id, from: RECIPIENT, text: 'STOP' })}'`,
      'Balance and charges:',
      `  curl -s ${api}/users/${saved.userId}/balances -H "Authorization: Bearer ${saved.token}"`,
      `  curl -s "${api}/users/${saved.userId}/transactions?start_date=${new Date().toISOString().slice(0, 10)}" -H "Authorization: Bearer ${saved.token}"`,
      "Before a campaign of thousands: raise the number's tier as the channel would, and top up the balance:",
      `  ${cli} sandbox:tier --app ${appId} --tier TIER_10K`,
      `  ${cli} balance:credit --user ${saved.userId} --amount 1000`,
      `API docs: ${urls.api}/api/docs`,
      `Gateway API docs: ${urls.gateway}/v1/docs (the TypeScript SDK: docs/sdk.md)`,
      '',
      `Gateway account (token in .data/demo.json): ${accountToken}`,
      'Send the same template on WhatsApp and on Telegram through the gateway:',
      gwCurl('whatsapp', RECIPIENT),
      gwCurl('telegram', TELEGRAM_CHAT),
      'One delivery report for every channel:',
      `  curl -s ${urls.gateway}/v1/messages/<message id> -H "Authorization: Bearer ${accountToken}"`,
      `  curl -s ${urls.gateway}/v1/messages -H "Authorization: Bearer ${accountToken}"`,
      'A course platform (sandbox) is connected with a "payment" rule: fire a payment event as the platform would:',
      courseCurl,
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
      const read = (id: string) => () =>
        call<{ status: string }>('GET', `/wa/apps/${appId}/messages/${id}`).then((r) => must(r, 'status', [200]));
      if (!(await follow(read(sent.message.id), ['DELIVERED', 'READ'], log, 'message'))) return false;
      // The same template through the gateway, on WhatsApp and on Telegram (which ends at SENT).
      for (const [channel, to, final] of [
        ['whatsapp', RECIPIENT, ['DELIVERED', 'READ']],
        ['telegram', TELEGRAM_CHAT, ['SENT']],
      ] as const) {
        const accepted = await gateway.send(gwSend(channel, to));
        const report = () => gateway.message(accepted.id);
        if (!(await follow(report, [...final], log, `gateway ${channel} message ${accepted.id}`))) return false;
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
