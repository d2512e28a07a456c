import { Command } from 'commander';
import { createDataSource } from '@app/database';
import { printResult, requireText, requireUuid } from '@app/config';
import { AccountsRepository } from '../accounts/accounts.repository';
import { gatewaySchema } from '../database/schema';

/** Connected accounts of the gateway: created by operators, no public registration. */
export function registerGatewayCommands(program: Command, databaseUrl: () => string): void {
  program
    .command('accounts:create')
    .description('create a gateway account and its token (shown once)')
    .requiredOption('--name <name>', 'account name')
    .option('--user <id>', 'the api user the account belongs to')
    .option('--json', 'print one JSON object')
    .action(async (o: { name: string; user?: string; json?: boolean }) => {
      const name = requireText('--name', o.name);
      const userId = o.user ? requireUuid('--user', o.user) : null;
      const ds = createDataSource(databaseUrl(), gatewaySchema, 2);
      await ds.initialize();
      try {
        const { account, token } = await new AccountsRepository(ds).createAccount(name, userId);
        printResult({ account_id: account.id, name: account.name, user_id: account.userId, token }, !!o.json);
      } finally {
        await ds.destroy();
      }
    });
}
