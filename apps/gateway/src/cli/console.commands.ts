import { Command } from 'commander';
import { DataSource } from 'typeorm';
import { requireUuid, UsageError } from '@app/config';
import { unixSeconds } from '@app/contracts';
import { AccountsRepository } from '../accounts/accounts.repository';
import { ConsoleAuditRepository } from '../console/console-audit.repository';
import { CONSOLE_ROLES, ConsoleRole } from '../console/console-roles';
import { ConsoleUsersRepository } from '../console/console-users.repository';
import { invitationUrl, normalEmail } from '../console/console.service';
import { hashPassword, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../console/passwords';

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,189}\.[^\s@]{1,63}$/;

/**
 * The console's first users, created by operators (owners invite the rest from the console): with
 * a password, a user ready to sign in; without, an invitation link (shown once, 7 days).
 */
export function registerConsoleCommands(
  program: Command,
  runOn: (fn: (ds: DataSource) => Promise<Record<string, unknown>>, json: boolean) => Promise<void>,
  /** Where the gateway's console is reached: invitation links point there. */
  publicUrl: () => string,
): void {
  program
    .command('console:users:create')
    .description('create a console user of a gateway account, or (without --password) an invitation link for one')
    .requiredOption('--account <id>', 'account id')
    .requiredOption('--email <email>', 'the email the user signs in with')
    .requiredOption('--role <role>', `one of ${CONSOLE_ROLES.join(', ')}`)
    .option('--password <password>', `at least ${PASSWORD_MIN_LENGTH} characters; omitted: an invitation link`)
    .option('--json', 'print one JSON object')
    .action(async (o: { account: string; email: string; role: string; password?: string; json?: boolean }) => {
      const accountId = requireUuid('--account', o.account);
      const email = normalEmail(o.email);
      if (!EMAIL.test(email)) throw new UsageError('--email must be an email address');
      if (!(CONSOLE_ROLES as readonly string[]).includes(o.role))
        throw new UsageError(`--role must be one of ${CONSOLE_ROLES.join(', ')}`);
      const role = o.role as ConsoleRole;
      const password = o.password;
      if (password !== undefined && (password.length < PASSWORD_MIN_LENGTH || password.length > PASSWORD_MAX_LENGTH))
        throw new UsageError(`--password must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters`);
      await runOn(async (ds) => {
        if (!(await new AccountsRepository(ds).findAccount(accountId))) throw new UsageError(`no account ${accountId}`);
        const users = new ConsoleUsersRepository(ds);
        const audit = new ConsoleAuditRepository(ds);
        const refused = (err: unknown) => {
          throw new UsageError((err as { detail?: string }).detail ?? String(err));
        };
        if (password === undefined) {
          const { token, expiresAt } = await users.invite(accountId, email, role, null).catch(refused);
          await audit.record(accountId, null, 'user.invited', email, { role, by: 'cli' });
          return {
            account_id: accountId,
            email,
            role,
            invitation_url: invitationUrl(publicUrl(), token),
            expires_at: unixSeconds(expiresAt),
          };
        }
        const user = await users.create(accountId, email, role, await hashPassword(password)).catch(refused);
        await audit.record(accountId, null, 'user.created', user.id, { email, role, by: 'cli' });
        return { user_id: user.id, account_id: accountId, email: user.email, role: user.role };
      }, !!o.json);
    });
}
