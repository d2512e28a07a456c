import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { decimal } from '../database/decimal.transformer';

/**
 * A user's money. `available` is what can still be spent (shown as the balance); `held` is
 * reserved for accepted messages until they are delivered (captured) or fail (released).
 * A check constraint keeps `available` from ever going negative.
 */
@Entity({ name: 'balances' })
export class BalanceEntity {
  @PrimaryColumn('uuid', { name: 'user_id' })
  userId: string;

  @Column('char', { length: 3 })
  currency: string;

  @Column('numeric', { precision: 20, scale: 4, transformer: decimal })
  available: number;

  @Column('numeric', { precision: 20, scale: 4, transformer: decimal })
  held: number;

  @UpdateDateColumn({ type: 'timestamptz', name: 'updated_at' })
  updatedAt: Date;
}
