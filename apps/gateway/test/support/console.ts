import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { createDataSource } from '@app/database';
import { spawnTs } from '@app/testing';
import { ApiFactory, TestUser } from '../../../../test/support/factories';
import { Platform, ServiceName, startPlatform } from '../../../../test/support/platform';
import { AccountsRepository } from '../../src/accounts/accounts.repository';
import { ConsoleRole } from '../../src/console/console-roles';
import { ConsoleUsersRepository } from '../../src/console/console-users.repository';
import { hashPassword } from '../../src/console/passwords';
import { gatewaySchema } from '../../src/database/schema';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface Answer {
  status: number;
  headers: Headers;
  body: Json;
}

/** A small built console: index.html and one hashed asset, in a directory of its own. */
export function fakeConsoleDist(): string {
  const dir = mkdtempSync(join(tmpdir(), 'console-dist-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(
    join(dir, 'index.html'),
    '<!doctype html><html><head><script type="module" src="/console/assets/app-1a2b.js"></script></head><body><div id="app"></div></body></html>',
  );
  writeFileSync(join(dir, 'assets', 'app-1a2b.js'), `console.log(${JSON.stringify('x'.repeat(4000))});`);
  return dir;
}

/** Plain HTTP against the gateway, with a bearer token or a console session's cookie and CSRF token. */
export async function call(
  base: string,
  path: string,
  init: {
    method?: string;
    token?: string;
    cookie?: string;
    csrf?: string;
    body?: unknown;
    headers?: Record<string, string>;
  } = {},
): Promise<Answer> {
  const res = await fetch(`${base}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: {
      ...(init.token ? { Authorization: `Bearer ${init.token}` } : {}),
      ...(init.cookie ? { Cookie: init.cookie } : {}),
      ...(init.csrf ? { 'X-CSRF-Token': init.csrf } : {}),
      ...(init.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
      ...init.headers,
    },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  const text = await res.text();
  let body: Json = {};
  try {
    body = text ? (JSON.parse(text) as Json) : {};
  } catch {
    body = { text };
  }
  return { status: res.status, headers: res.headers, body };
}

/** A signed-in console user: its cookie and CSRF token, and calls made with them. */
export class ConsoleUser {
  constructor(
    readonly base: string,
    readonly cookie: string,
    readonly csrf: string,
    readonly user: Json,
  ) {}

  static async signIn(base: string, email: string, password: string): Promise<ConsoleUser> {
    const res = await call(base, '/console/api/session', { body: { email, password } });
    if (res.status !== 200) throw new Error(`sign-in of ${email}: ${res.status} ${JSON.stringify(res.body)}`);
    return new ConsoleUser(base, sessionCookieOf(res.headers), res.body.csrf_token, res.body.user);
  }

  /** A request with the session cookie; changes carry the CSRF token unless `csrf: false`. */
  call(path: string, init: { method?: string; body?: unknown; csrf?: boolean } = {}): Promise<Answer> {
    const method = init.method ?? (init.body === undefined ? 'GET' : 'POST');
    return call(this.base, path, {
      method,
      body: init.body,
      cookie: this.cookie,
      csrf: init.csrf === false || method === 'GET' ? undefined : this.csrf,
    });
  }
}

/** `console_session=<id>` from a Set-Cookie answer. */
export function sessionCookieOf(headers: Headers): string {
  const set = headers.get('set-cookie') ?? '';
  const m = /console_session=([^;]*)/.exec(set);
  if (!m) throw new Error(`no console_session cookie in ${set}`);
  return `console_session=${m[1]}`;
}

/** `pnpm cli` against the suite's database: its exit code and output. */
export function cli(
  env: Record<string, string>,
  ...args: string[]
): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawnTs('scripts/cli.ts', env, args);
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, out, err })));
}

export interface ConsolePlatform {
  platform: Platform;
  factory: ApiFactory;
  gatewayDb: DataSource;
  accounts: AccountsRepository;
  distDir: string;
  gateway: string;
  /** An api user with a linked gateway account, and its token. */
  user: TestUser;
  accountId: string;
  token: string;
  stop(): Promise<void>;
}

/** The api and the gateway, a fake built console, and one linked account with its token. */
export async function startConsolePlatform(
  suite: string,
  env: Record<string, string> = {},
  more: ServiceName[] = [],
): Promise<ConsolePlatform> {
  const distDir = fakeConsoleDist();
  const platform = await startPlatform({
    suite,
    services: ['api', 'gateway', ...more],
    env: { CONSOLE_DIST_DIR: distDir, ...env },
  });
  const factory = await ApiFactory.connect(platform.infra.databaseUrl);
  const gatewayDb = createDataSource(platform.infra.databaseUrl, gatewaySchema, 2);
  await gatewayDb.initialize();
  const accounts = new AccountsRepository(gatewayDb);
  const user = await factory.user('system', { balance: 25 });
  const created = await accounts.createAccount('console shop', user.userId);
  return {
    platform,
    factory,
    gatewayDb,
    accounts,
    distDir,
    gateway: platform.urls.gateway,
    user,
    accountId: created.account.id,
    token: created.token,
    async stop() {
      await gatewayDb.destroy();
      await factory.close();
      await platform.stop();
    },
  };
}

/** A console user written through the console's repository (as the CLI does), signed in. */
export async function consoleUser(
  p: ConsolePlatform,
  role: ConsoleRole,
  accountId = p.accountId,
  password = 'correct horse battery',
): Promise<ConsoleUser> {
  const email = `${role}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  await new ConsoleUsersRepository(p.gatewayDb).create(accountId, email, role, await hashPassword(password));
  return ConsoleUser.signIn(p.gateway, email, password);
}
