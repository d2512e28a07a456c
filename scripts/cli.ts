// pnpm cli <command>: the operator's tool (users, tokens, balances, gateway accounts).
import 'reflect-metadata';
import { Command, CommanderError } from 'commander';
import { DatabaseConfig, loadConfig, UsageError } from '@app/config';
import { registerApiCommands, withApiDatabase } from '../apps/api/src/cli/admin.commands';
import { registerGatewayCommands } from '../apps/gateway/src/cli/accounts.commands';

const databaseUrl = () => loadConfig(DatabaseConfig).DATABASE_URL;

export function buildCli(): Command {
  const program = new Command('cli')
    .description('Operator commands of the messaging platform. DATABASE_URL selects the database.')
    .exitOverride()
    .showHelpAfterError();
  registerApiCommands(program, withApiDatabase(databaseUrl));
  registerGatewayCommands(program, databaseUrl);
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
