import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { generateToken, hashToken } from '@app/auth';
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

  async findByToken(token: string): Promise<AccountEntity | null> {
    return this.ds
      .getRepository(AccountEntity)
      .createQueryBuilder('a')
      .innerJoin(AccountTokenEntity, 't', 't.account_id = a.id')
      .where('t.token_hash = :hash AND t.revoked_at IS NULL', { hash: hashToken(token) })
      .getOne();
  }
}
