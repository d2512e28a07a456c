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

  /**
   * CREDITED for top-ups; for a captured charge, the status its message is charged at: DELIVERED, or
   * SENT on a channel without receipts (`chargedStatusOf`).
   */
  @Column('text')
  status: string;

  /** The category charged: what the channel billed, or the one assumed at send when it did not say. */
  @Column('text', { nullable: true })
  category: string | null;

  /** The category the message was sent (and held) as; null on top-ups and charges older than it. */
  @Column('text', { name: 'assumed_category', nullable: true })
  assumedCategory: string | null;

  /** The channel's pricing type (regular, free_customer_service, free_entry_point); null when it gave none. */
  @Column('text', { name: 'pricing_type', nullable: true })
  pricingType: string | null;

  /** What the channel billed beyond the hold that the available balance could not cover (never charged). */
  @Column('numeric', { precision: 20, scale: 4, transformer: decimal, default: 0 })
  uncharged: number;

  @Column('text', { name: 'recipient_phone', nullable: true })
  recipientPhone: string | null;

  /** The charged message; unique, so a message is never charged twice. */
  @Index({ unique: true, where: 'message_id IS NOT NULL' })
  @Column('text', { name: 'message_id', nullable: true })
  messageId: string | null;

  /** The campaign the charged message was sent for; null for other charges and top-ups. */
  @Column('uuid', { name: 'campaign_id', nullable: true })
  campaignId: string | null;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;
}
