import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type {
  Channel,
  MessageCategory,
  MessageKind,
  MessageStatus,
  PricingType,
  Priority,
  RenderedAs,
} from '@app/contracts';
import { decimal } from '../database/decimal.transformer';

/**
 * One accepted send: metadata only. The content lives in the outbound stream until delivery and is
 * never written here.
 */
@Entity({ name: 'messages' })
export class MessageEntity {
  /** UUID v7. */
  @PrimaryColumn('text')
  id: string;

  @Column('uuid', { name: 'user_id' })
  userId: string;

  /** The WhatsApp app that sends it; null for a gateway account's bot-channel message. */
  @Column('integer', { name: 'app_id', nullable: true })
  appId: number | null;

  /** The gateway account that sent it; null for a send through the public API. */
  @Column('uuid', { name: 'account_id', nullable: true })
  accountId: string | null;

  @Column('text')
  channel: Channel;

  @Column('text')
  recipient: string;

  @Column('text')
  kind: MessageKind;

  @Column('text')
  category: MessageCategory;

  @Column('text')
  priority: Priority;

  @Column('integer', { name: 'template_id', nullable: true })
  templateId: number | null;

  @Column('text')
  status: MessageStatus;

  @Column('text', { name: 'provider_message_id', nullable: true })
  providerMessageId: string | null;

  @Column('numeric', { precision: 20, scale: 4, transformer: decimal })
  price: number;

  @Column('char', { length: 3 })
  currency: string;

  /** The category the charge followed (what the channel billed, else `category`); null until captured. */
  @Column('text', { name: 'billed_category', nullable: true })
  billedCategory: MessageCategory | null;

  /** The channel's pricing type when its callback gave one; null otherwise. */
  @Column('text', { name: 'pricing_type', nullable: true })
  pricingType: PricingType | null;

  /** The amount captured (0 for a message the channel did not bill); null until captured. */
  @Column('numeric', { precision: 20, scale: 4, transformer: decimal, nullable: true })
  charged: number | null;

  @Column('text', { name: 'idempotency_key', nullable: true })
  idempotencyKey: string | null;

  @Column('char', { length: 64, name: 'request_hash', nullable: true })
  requestHash: string | null;

  @Column('text', { name: 'failure_code', nullable: true })
  failureCode: string | null;

  @Column('text', { name: 'failure_reason', nullable: true })
  failureReason: string | null;

  /** The campaign it was sent for (every attempt of its route names it); null for other sends. */
  @Column('uuid', { name: 'campaign_id', nullable: true })
  campaignId: string | null;

  /** The gateway contact it was sent to (a send with `contact`, a campaign's recipient); null for a send to an address. */
  @Column('text', { name: 'contact_id', nullable: true })
  contactId: string | null;

  /** That contact's external id when it had one then; null otherwise. */
  @Column('text', { name: 'contact_external_id', nullable: true })
  contactExternalId: string | null;

  /** A content send: what its channel was asked to send (a RenderedAs); null for a template send. */
  @Column('text', { name: 'rendered_as', nullable: true })
  renderedAs: RenderedAs | null;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', name: 'updated_at' })
  updatedAt: Date;
}
