import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';
import { decimal } from '../database/decimal.transformer';

/** A movement of money: a top-up (positive) or a captured charge for a delivered message (negative). */
@Entity({ name: 'transactions' })
@Index(['userId', 'createdAt'])
export class TransactionEntity {
  @PrimaryColumn('uuid')
  id: string;

  @Column('uuid', { name: 'user_id' })
  userId: string;

  @Column('integer', { name: 'app_id', nullable: true })
  appId: number | null;

  @Column('numeric', { precision: 20, scale: 4, transformer: decimal })
  amount: number;

  @Column('char', { length: 3 })
  currency: string;

  /** CREDITED for top-ups, DELIVERED for captured message charges. */
  @Column('text')
  status: string;

  @Column('text', { nullable: true })
  category: string | null;

  @Column('text', { name: 'recipient_phone', nullable: true })
  recipientPhone: string | null;

  /** The charged message; unique, so a message is never charged twice. */
  @Index({ unique: true, where: 'message_id IS NOT NULL' })
  @Column('text', { name: 'message_id', nullable: true })
  messageId: string | null;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;
}
