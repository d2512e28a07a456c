import { DataSource } from 'typeorm';
import { createDataSource } from '@app/database';
import type { TokenKind } from '@app/auth';
import { BalancesRepository } from '../../apps/api/src/billing/balances.repository';
import { apiSchema } from '../../apps/api/src/database/schema';
import { UsersRepository } from '../../apps/api/src/users/users.repository';

export interface TestUser {
  userId: string;
  token: string;
  /** `Authorization` header value. */
  auth: string;
}

/** Users, tokens and money, written through the api's own repositories (as the CLI does). */
export class ApiFactory {
  private constructor(private readonly ds: DataSource) {}

  static async connect(databaseUrl: string): Promise<ApiFactory> {
    const ds = createDataSource(databaseUrl, apiSchema, 2);
    await ds.initialize();
    return new ApiFactory(ds);
  }

  get dataSource(): DataSource {
    return this.ds;
  }

  async user(
    kind: TokenKind = 'system',
    opts: { name?: string; currency?: string; balance?: number } = {},
  ): Promise<TestUser> {
    const users = new UsersRepository(this.ds);
    const user = await users.createUser(
      opts.name ?? `tenant-${Math.random().toString(36).slice(2, 8)}`,
      kind,
      opts.currency ?? 'USD',
    );
    const { token } = await users.issueToken(user.id, 'test');
    if (opts.balance) await new BalancesRepository(this.ds).credit(user.id, opts.balance);
    return { userId: user.id, token, auth: `Bearer ${token}` };
  }

  async revoke(token: string): Promise<void> {
    await new UsersRepository(this.ds).revokeToken({ token });
  }

  async close(): Promise<void> {
    await this.ds.destroy();
  }
}
