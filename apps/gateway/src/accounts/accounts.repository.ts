import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { generateToken, hashToken } from '@app/auth';
import { liveTokenOwners } from '@app/database';
import { AccountTokenEntity } from './account-token.entity';
import { AccountEntity } from './account.entity';

/** The only place that queries gateway accounts and their tokens. */
@Injectable()
export class AccountsRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** Creates an account and its first token (shown once). */
  async createAccount(
    name: string,
    userId: string | null,
  ): Promise<{ account: AccountEntity; token: string; tokenId: string }> {
    return this.ds.transaction(async (em) => {
      const account = em.create(AccountEntity, { id: uuidv7(), name, userId });
      await em.insert(AccountEntity, account);
      const token = generateToken('gk');
      const tokenId = uuidv7();
      await em.insert(AccountTokenEntity, { id: tokenId, accountId: account.id, tokenHash: hashToken(token) });
      return { account, token, tokenId };
    });
  }

  /** Changes the settings given (null clears the region); the account after, or null when there is none. */
  async updateSettings(
    id: string,
    settings: { timeZone?: string; defaultRegion?: string | null },
  ): Promise<AccountEntity | null> {
    const set: Partial<AccountEntity> = {};
    if (settings.timeZone !== undefined) set.timeZone = settings.timeZone;
    if (settings.defaultRegion !== undefined) set.defaultRegion = settings.defaultRegion;
    if (Object.keys(set).length) await this.ds.getRepository(AccountEntity).update({ id }, set);
    return this.findAccount(id);
  }

  async findAccount(id: string): Promise<AccountEntity | null> {
    return this.ds.getRepository(AccountEntity).findOneBy({ id });
  }

  /** Another token for an account (shown once); null when the account does not exist. */
  async createToken(accountId: string): Promise<{ tokenId: string; token: string } | null> {
    if (!(await this.findAccount(accountId))) return null;
    const token = generateToken('gk');
    const tokenId = uuidv7();
    await this.ds.getRepository(AccountTokenEntity).insert({ id: tokenId, accountId, tokenHash: hashToken(token) });
    return { tokenId, token };
  }

  /** Revokes a token at once; false when no live token has that id. */
  async revokeToken(tokenId: string): Promise<boolean> {
    const result = await this.ds
      .getRepository(AccountTokenEntity)
      .createQueryBuilder()
      .update()
      .set({ revokedAt: () => 'now()' })
      .where('id = :tokenId AND revoked_at IS NULL', { tokenId })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  /**
   * The account behind a live token, or null for an unknown or revoked one; concurrent requests
   * share one query, read after each of them asked (a token revoked a moment ago is refused).
   */
  findByToken(token: string): Promise<AccountEntity | null> {
    return this.byTokenHash(hashToken(token));
  }

  private readonly byTokenHash = liveTokenOwners(
    () => this.ds,
    {
      columns: 'a.id, a.name, a.user_id, a.time_zone, a.default_region, a.created_at',
      from: 'account_tokens t JOIN accounts a ON a.id = t.account_id',
    },
    (r: {
      id: string;
      name: string;
      user_id: string | null;
      time_zone: string;
      default_region: string | null;
      created_at: Date;
    }) =>
      Object.assign(new AccountEntity(), {
        id: r.id,
        name: r.name,
        userId: r.user_id,
        timeZone: r.time_zone,
        defaultRegion: r.default_region,
        createdAt: r.created_at,
      }),
  );
}
