import { Command } from 'commander';
import { DataSource } from 'typeorm';
import { requireText, requireUuid, UsageError } from '@app/config';
import { AccountsRepository } from '../accounts/accounts.repository';

/** Connected accounts of the gateway and their tokens: created by operators, no public registration. */
export function registerGatewayCommands(
  program: Command,
  /** Runs a command on the gateway schema of the operator's database and prints its result. */
  runOn: (fn: (ds: DataSource) => Promise<Record<string, unknown>>, json: boolean) => Promise<void>,
): void {
  const run = (fn: (accounts: AccountsRepository) => Promise<Record<string, unknown>>, json: boolean) =>
    runOn((ds) => fn(new AccountsRepository(ds)), json);

  program
    .command('accounts:create')
    .description('create a gateway account and its token (shown once)')
    .requiredOption('--name <name>', 'account name')
    .option('--user <id>', 'the api user the account belongs to')
    .option('--json', 'print one JSON object')
    .action(async (o: { name: string; user?: string; json?: boolean }) => {
      const name = requireText('--name', o.name);
      const userId = o.user ? requireUuid('--user', o.user) : null;
      await run(async (accounts) => {
        const { account, token, tokenId } = await accounts.createAccount(name, userId);
        return { account_id: account.id, name: account.name, user_id: account.userId, token_id: tokenId, token };
      }, !!o.json);
    });

  program
    .command('accounts:tokens:create')
    .description('another token for a gateway account (shown once)')
    .requiredOption('--account <id>', 'account id')
    .option('--json', 'print one JSON object')
    .action(async (o: { account: string; json?: boolean }) => {
      const accountId = requireUuid('--account', o.account);
      await run(async (accounts) => {
        const created = await accounts.createToken(accountId);
        if (!created) throw new UsageError(`no account ${accountId}`);
        return { account_id: accountId, token_id: created.tokenId, token: created.token };
      }, !!o.json);
    });

  program
    .command('accounts:tokens:revoke')
    .description('revoke a gateway account token by its id')
    .requiredOption('--token-id <id>', 'token id')
    .option('--json', 'print one JSON object')
    .action(async (o: { tokenId: string; json?: boolean }) => {
      const tokenId = requireUuid('--token-id', o.tokenId);
      await run(async (accounts) => {
        if (!(await accounts.revokeToken(tokenId))) throw new UsageError('no such live token');
        return { revoked: true, token_id: tokenId };
      }, !!o.json);
    });
}
