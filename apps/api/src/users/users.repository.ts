import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, IsNull } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { liveTokenOwners } from '@app/database';
import { generateToken, hashToken, TokenKind } from '@app/auth';
import { BalanceEntity } from '../billing/balance.entity';
import { ApiTokenEntity } from './api-token.entity';
import { UserEntity } from './user.entity';

export interface IssuedToken {
  tokenId: string;
  token: string;
}

/** The only place that queries users and their tokens. */
@Injectable()
export class UsersRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** Creates a user with an empty balance in their currency. */
  async createUser(name: string, kind: TokenKind, currency: string): Promise<UserEntity> {
    return this.ds.transaction(async (em) => {
      const user = em.create(UserEntity, { id: uuidv7(), name, kind, currency });
      await em.insert(UserEntity, user);
      await em.insert(BalanceEntity, { userId: user.id, currency, available: 0, held: 0 });
      return user;
    });
  }

  findUser(id: string): Promise<UserEntity | null> {
    return this.ds.getRepository(UserEntity).findOneBy({ id });
  }

  async issueToken(
    userId: string,
    label: string | null = null,
    em: EntityManager = this.ds.manager,
  ): Promise<IssuedToken> {
    const user = await em.findOneByOrFail(UserEntity, { id: userId });
    const token = generateToken(user.kind === 'system' ? 'sk' : 'uk');
    const tokenId = uuidv7();
    await em.insert(ApiTokenEntity, { id: tokenId, userId, tokenHash: hashToken(token), label });
    return { tokenId, token };
  }

  /** Revokes by id or by the token string as of `at`; true when a live token was revoked. */
  async revokeToken(by: { tokenId?: string; token?: string }, at: Date): Promise<boolean> {
    const where = by.tokenId ? { id: by.tokenId } : { tokenHash: hashToken(by.token ?? '') };
    const res = await this.ds
      .getRepository(ApiTokenEntity)
      .update({ ...where, revokedAt: IsNull() }, { revokedAt: at });
    return (res.affected ?? 0) > 0;
  }

  /** The user behind a live token, or null for an unknown or revoked one; concurrent requests share one query. */
  findByToken(token: string): Promise<UserEntity | null> {
    return this.byTokenHash(hashToken(token));
  }

  private readonly byTokenHash = liveTokenOwners(
    () => this.ds,
    {
      columns: 'u.id, u.name, u.kind, u.currency, u.created_at',
      from: 'api_tokens t JOIN users u ON u.id = t.user_id',
    },
    (r: { id: string; name: string; kind: TokenKind; currency: string; created_at: Date }) =>
      Object.assign(new UserEntity(), {
        id: r.id,
        name: r.name,
        kind: r.kind,
        currency: r.currency,
        createdAt: r.created_at,
      }),
  );
}
