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
  async createAccount(name: string, userId: string | null): Promise<{ account: AccountEntity; token: string }> {
    return this.ds.transaction(async (em) => {
      const account = em.create(AccountEntity, { id: uuidv7(), name, userId });
      await em.insert(AccountEntity, account);
      const token = generateToken('gk');
      await em.insert(AccountTokenEntity, { id: uuidv7(), accountId: account.id, tokenHash: hashToken(token) });
      return { account, token };
    });
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
