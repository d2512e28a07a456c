import { Command } from 'commander';
import { DataSource } from 'typeorm';
import { requireText, requireUuid, UsageError } from '@app/config';
import { isPhoneRegion } from '@app/contracts';
import { AccountsRepository } from '../accounts/accounts.repository';
import { isTimeZone } from '../contacts/contact-fields';

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
    .command('accounts:settings')
    .description(
      "show or change a gateway account's settings: its contacts' time zone, the region of national phone numbers",
    )
    .requiredOption('--account <id>', 'account id')
    .option('--time-zone <zone>', 'IANA time zone of contacts that name none, such as Europe/Moscow')
    .option('--region <code>', 'ISO 3166 region national phone numbers are read in, such as RU or US; none clears it')
    .option('--json', 'print one JSON object')
    .action(async (o: { account: string; timeZone?: string; region?: string; json?: boolean }) => {
      const accountId = requireUuid('--account', o.account);
      if (o.timeZone !== undefined && !isTimeZone(o.timeZone))
        throw new UsageError('--time-zone must be an IANA time zone such as Europe/Moscow');
      const region = o.region === undefined ? undefined : o.region === 'none' ? null : o.region.toUpperCase();
      if (region && !isPhoneRegion(region))
        throw new UsageError('--region must be a region code such as RU or US, or none');
      await run(async (accounts) => {
        const account = await accounts.updateSettings(accountId, { timeZone: o.timeZone, defaultRegion: region });
        if (!account) throw new UsageError(`no account ${accountId}`);
        return { account_id: account.id, time_zone: account.timeZone, default_region: account.defaultRegion };
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
