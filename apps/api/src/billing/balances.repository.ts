import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { BalanceEntity } from './balance.entity';
import { TransactionEntity } from './transaction.entity';

/** The only place that queries balances and transactions. */
@Injectable()
export class BalancesRepository {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  findBalance(userId: string): Promise<BalanceEntity | null> {
    return this.ds.getRepository(BalanceEntity).findOneBy({ userId });
  }

  /** A top-up: a positive transaction and the same amount added to the available balance, atomically. */
  async credit(userId: string, amount: number): Promise<{ transaction: TransactionEntity; balance: BalanceEntity }> {
    return this.ds.transaction(async (em) => {
      const rows: { currency: string }[] = await em.query(
        `UPDATE balances SET available = available + $2, updated_at = now() WHERE user_id = $1 RETURNING currency`,
        [userId, amount],
      );
      if (rows.length === 0) throw new Error(`user ${userId} has no balance`);
      const transaction = em.create(TransactionEntity, {
        id: uuidv7(),
        userId,
        appId: null,
        amount,
        currency: rows[0].currency,
        status: 'CREDITED',
        category: null,
        recipientPhone: null,
        messageId: null,
      });
      await em.insert(TransactionEntity, transaction);
      const balance = await em.findOneByOrFail(BalanceEntity, { userId });
      return { transaction, balance };
    });
  }
}
