// pnpm cli <command>: the operator's tool (users, tokens, balances, gateway accounts).
import 'reflect-metadata';
import { Command, CommanderError } from 'commander';
import { DataSource } from 'typeorm';
import { DatabaseConfig, loadConfig, printResult, UsageError } from '@app/config';
import { createDataSource, SchemaDefinition } from '@app/database';
import { registerApiCommands } from '../apps/api/src/cli/admin.commands';
import { registerSandboxCommands } from '../apps/api/src/cli/sandbox.commands';
import { apiSchema } from '../apps/api/src/database/schema';
import { registerGatewayCommands } from '../apps/gateway/src/cli/accounts.commands';
import { registerConsoleCommands } from '../apps/gateway/src/cli/console.commands';
import { gatewaySchema } from '../apps/gateway/src/database/schema';
import { findRunningStack, shownPath, stackDataDir, stackRecordPath, StackRecord } from './stack-state';

/** The database a command writes to, and how it was chosen. */
export interface CliDatabase {
  url: string;
  /** The URL without its password: what the command says it wrote to. */
  shown: string;
  /** Where it came from: DATABASE_URL, or the running local stack. */
  from: string;
}

function withoutPassword(url: string): string {
  try {
    const u = new URL(url);
    u.password = '';
    return u.toString();
  } catch {
    return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1@');
  }
}

/** The local stack running from this checkout's data directory (STACK_DATA_DIR), if any. */
function runningStack(env: NodeJS.ProcessEnv): StackRecord | undefined {
  const found = findRunningStack(stackDataDir(env));
  return found.state === 'running' ? found.record : undefined;
}

/**
 * DATABASE_URL when set; otherwise the database of the local stack running now (its record under
 * the data directory), never a guess: without either there is nothing to write to.
 */
export function cliDatabase(env: NodeJS.ProcessEnv = process.env): CliDatabase {
  if (env.DATABASE_URL) {
    const url = loadConfig(DatabaseConfig, env).DATABASE_URL;
    return { url, shown: withoutPassword(url), from: 'DATABASE_URL' };
  }
  const dataDir = stackDataDir(env);
  const found = findRunningStack(dataDir);
  const record = shownPath(stackRecordPath(dataDir));
  if (found.state === 'running') {
    const url = found.record.database_url;
    return { url, shown: withoutPassword(url), from: `the local stack's, pid ${found.record.pid}` };
  }
  throw new UsageError(
    found.state === 'stale'
      ? `no database: DATABASE_URL is not set and the local stack of ${record} (pid ${found.record.pid}) is no longer running; start it with pnpm stack (this command then uses its database), or set DATABASE_URL.`
      : `no database: DATABASE_URL is not set and no local stack is running (none recorded in ${record}); start one with pnpm stack (this command then uses its database), or set DATABASE_URL.`,
  );
}

/** One sentence for a database that cannot be reached: where it was looked for, and how to reach the stack's. */
function unreachable(err: unknown, db: CliDatabase, env: NodeJS.ProcessEnv): Error {
  const { code, message } = err as { code?: string; message?: string };
  const u = new URL(db.url);
  const at = `${u.hostname}:${u.port || 5432}`;
  const stack = db.from === 'DATABASE_URL' ? runningStack(env) : undefined;
  const hint = stack
    ? `the local stack running now (pid ${stack.pid}) has its database at ${withoutPassword(stack.database_url)}: run this without DATABASE_URL to use it.`
    : db.from === 'DATABASE_URL'
      ? "to use the local stack's database instead, start it with pnpm stack and run this without DATABASE_URL."
      : 'the stack may be stopping; start it again with pnpm stack.';
  if (code === '3D000')
    return new Error(`database "${u.pathname.slice(1)}" does not exist at ${at} (${db.from}); ${hint}`);
  if (code === 'ECONNREFUSED') return new Error(`no database answers at ${at} (${db.from}); ${hint}`);
  return new Error(`the database at ${at} (${db.from}) refused the connection: ${message ?? String(err)}`);
}

/**
 * Runs one command on a schema of the chosen database and prints its result with the database it
 * wrote to (`database` in --json).
 */
export function runOn(schema: SchemaDefinition, env: NodeJS.ProcessEnv = process.env) {
  return async (fn: (ds: DataSource) => Promise<Record<string, unknown>>, json: boolean): Promise<void> => {
    const db = cliDatabase(env);
    const ds = createDataSource(db.url, schema, 2);
    await ds.initialize().catch((err: unknown) => {
      throw unreachable(err, db, env);
    });
    try {
      const result = await fn(ds);
      printResult({ ...result, database: json ? db.shown : `${db.shown} (${db.from})` }, json);
    } finally {
      await ds.destroy();
    }
  };
}

/** The sandbox the sandbox commands act on: SANDBOX_URL, else the running local stack's. */
function sandboxUrl(env: NodeJS.ProcessEnv = process.env): string {
  const url = env.SANDBOX_URL || runningStack(env)?.urls?.sandbox;
  if (!url) {
    throw new UsageError(
      'no sandbox: SANDBOX_URL is not set and no local stack is running; start one with pnpm stack, or set SANDBOX_URL.',
    );
  }
  return url;
}

export function buildCli(): Command {
  const program = new Command('cli')
    .description(
      'Operator commands of the messaging platform. DATABASE_URL selects the database; without it, the running local stack (pnpm stack) is used.',
    )
    .exitOverride()
    .showHelpAfterError();
  registerApiCommands(program, runOn(apiSchema));
  registerSandboxCommands(program, runOn(apiSchema), () => sandboxUrl());
  registerGatewayCommands(program, runOn(gatewaySchema));
  registerConsoleCommands(
    program,
    runOn(gatewaySchema),
    () => process.env.GATEWAY_PUBLIC_URL || runningStack(process.env)?.urls?.gateway || 'http://localhost:3100',
  );
  return program;
}

async function main(): Promise<void> {
  try {
    await buildCli().parseAsync(process.argv);
  } catch (err) {
    if (err instanceof CommanderError) process.exit(err.exitCode === 0 ? 0 : 2);
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`error: ${message}\n`);
    process.exit(err instanceof UsageError || (err as { name?: string })?.name === 'ConfigError' ? 2 : 1);
  }
}

void main();
