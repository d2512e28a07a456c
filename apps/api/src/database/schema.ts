import type { SchemaDefinition } from '@app/database';
import { BalanceEntity } from '../billing/balance.entity';
import { TransactionEntity } from '../billing/transaction.entity';
import { ApiTokenEntity } from '../users/api-token.entity';
import { UserEntity } from '../users/user.entity';
import { Initial1763700000000 } from './migrations/1763700000000-Initial';

/** The api's schema: its entities and migrations, in order. */
export const apiSchema: SchemaDefinition = {
  schema: 'api',
  entities: [UserEntity, ApiTokenEntity, BalanceEntity, TransactionEntity],
  migrations: [Initial1763700000000],
};
