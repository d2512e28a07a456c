import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import { decimal } from '../database/decimal.transformer';

export const HOLD_STATUSES = ['HELD', 'CAPTURED', 'RELEASED'] as const;
export type HoldStatus = (typeof HOLD_STATUSES)[number];

/**
 * Money reserved for one accepted message: captured as a transaction on delivery, released on
 * failure. One per message; it settles once (HELD is the only state that moves).
 */
@Entity({ name: 'holds' })
export class HoldEntity {
  @PrimaryColumn('text', { name: 'message_id' })
  messageId: string;

  @Column('uuid', { name: 'user_id' })
  userId: string;

  @Column('numeric', { precision: 20, scale: 4, transformer: decimal })
  amount: number;

  @Column('char', { length: 3 })
  currency: string;

  @Column('text')
  status: HoldStatus;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;

  @Column('timestamptz', { name: 'settled_at', nullable: true })
  settledAt: Date | null;
}
