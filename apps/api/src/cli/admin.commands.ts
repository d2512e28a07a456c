import { Command } from 'commander';
import { DataSource } from 'typeorm';
import { TOKEN_KINDS, TokenKind } from '@app/auth';
import { requireAmount, requireText, requireUuid, UsageError } from '@app/config';
import { Clock } from '@app/server';
import { BalancesRepository } from '../billing/balances.repository';
import { BillingService } from '../billing/billing.service';
import { UsersRepository } from '../users/users.repository';

/** Runs a command on the api schema of the operator's database and prints its result. */
export type Run = (fn: (ds: DataSource) => Promise<Record<string, unknown>>, json: boolean) => Promise<void>;

/** Users, tokens and balances: the operator's side of the api (tokens are shown once). */
export function registerApiCommands(program: Command, run: Run): void {
  program
    .command('users:create')
    .description('create a user with an empty balance and a first token (shown once)')
    .requiredOption('--name <name>', 'the user (tenant) name')
    .option('--kind <kind>', 'system (may call the API) or user', 'system')
    .option('--currency <code>', 'balance currency (ISO 4217)', 'USD')
    .option('--json', 'print one JSON object')
    .action(async (o: { name: string; kind: string; currency: string; json?: boolean }) => {
      const name = requireText('--name', o.name);
      if (!(TOKEN_KINDS as readonly string[]).includes(o.kind)) throw new UsageError('--kind must be system or user');
      if (!/^[A-Z]{3}$/.test(o.currency)) throw new UsageError('--currency must be three capital letters (ISO 4217)');
      await run(async (ds) => {
        const users = new UsersRepository(ds);
        const user = await users.createUser(name, o.kind as TokenKind, o.currency);
        const { tokenId, token } = await users.issueToken(user.id, 'created with the user');
        return { user_id: user.id, kind: user.kind, currency: user.currency, token_id: tokenId, token };
      }, !!o.json);
    });

  program
    .command('tokens:create')
    .description('issue another token for a user (shown once; stored as its SHA-256)')
    .requiredOption('--user <id>', 'user id')
    .option('--label <text>', 'what the token is for')
    .option('--json', 'print one JSON object')
    .action(async (o: { user: string; label?: string; json?: boolean }) => {
      const userId = requireUuid('--user', o.user);
      await run(async (ds) => {
        const users = new UsersRepository(ds);
        if (!(await users.findUser(userId))) throw new UsageError(`no user ${userId}`);
        const { tokenId, token } = await users.issueToken(userId, o.label ?? null);
        return { user_id: userId, token_id: tokenId, token };
      }, !!o.json);
    });

  program
    .command('tokens:revoke')
    .description('revoke a token by its id or by the token itself')
    .option('--token-id <id>', 'token id')
    .option('--token <token>', 'the token string')
    .option('--json', 'print one JSON object')
    .action(async (o: { tokenId?: string; token?: string; json?: boolean }) => {
      if (!o.tokenId === !o.token) throw new UsageError('give exactly one of --token-id or --token');
      const by = o.tokenId ? { tokenId: requireUuid('--token-id', o.tokenId) } : { token: o.token };
      await run(async (ds) => {
        const revoked = await new UsersRepository(ds).revokeToken(by, new Clock().now());
        if (!revoked) throw new UsageError('no such live token');
        return { revoked: true, ...(by.tokenId ? { token_id: by.tokenId } : {}) };
      }, !!o.json);
    });

  program
    .command('balance:credit')
    .description("top up a user's balance (a positive transaction)")
    .requiredOption('--user <id>', 'user id')
    .requiredOption('--amount <amount>', 'amount in the balance currency')
    .option('--json', 'print one JSON object')
    .action(async (o: { user: string; amount: string; json?: boolean }) => {
      const userId = requireUuid('--user', o.user);
      const amount = requireAmount('--amount', o.amount);
      await run(async (ds) => {
        const balances = new BalancesRepository(ds);
        if (!(await balances.findBalance(userId))) throw new UsageError(`no user ${userId}`);
        const { transaction, balance } = await new BillingService(balances).credit(userId, amount);
        return { transaction_id: transaction.id, amount, balance: balance.available, currency: balance.currency };
      }, !!o.json);
    });
}
