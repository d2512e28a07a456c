import { APP_MESSAGE_LIMITS, APP_PHONE_QUALITIES, AppMessageLimit, AppPhoneQuality } from '@app/contracts';
import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export const APP_STATUSES = ['INACTIVE', 'ACTIVE', 'BLOCKED'] as const;
export type AppStatus = (typeof APP_STATUSES)[number];

/** Messaging tiers: the cap on unique recipients of business-initiated conversations per 24 hours. */
export const MESSAGE_LIMITS = APP_MESSAGE_LIMITS;
export type MessageLimit = AppMessageLimit;

export const PHONE_QUALITIES = APP_PHONE_QUALITIES;
export type PhoneQuality = AppPhoneQuality;

/** An application: one business account (WABA) and its WhatsApp number, owned by a tenant. */
@Entity({ name: 'apps' })
export class AppEntity {
  @PrimaryGeneratedColumn('increment')
  id: number;

  /** UUID v4; also the key of the onboarding link and of the profile photo URL. */
  @Column('uuid', { unique: true })
  uuid: string;

  /** The tenant (system user) that owns the app. */
  @Index()
  @Column('uuid', { name: 'user_id' })
  userId: string;

  @Column('text')
  name: string;

  @Column('text')
  status: AppStatus;

  @Column('text', { name: 'message_limit' })
  messageLimit: MessageLimit;

  @Column('text', { name: 'phone_quality' })
  phoneQuality: PhoneQuality;

  /** The business number in international format (digits only), recorded at onboarding. */
  @Column('text', { nullable: true })
  phone: string | null;

  @Column('text', { name: 'waba_id', nullable: true })
  wabaId: string | null;

  /** The channel credential of the number (Cloud API phone_number_id), recorded at onboarding. */
  @Column('text', { name: 'phone_number_id', nullable: true })
  phoneNumberId: string | null;

  @Column('boolean', { name: 'is_mm_lite_supported' })
  isMmLiteSupported: boolean;

  @Column('boolean', { name: 'is_stopped' })
  isStopped: boolean;

  /**
   * The exact unique-recipient cap the channel reported when its tier is not one of the labels
   * (TIER_1K: 1000, shown as TIER_2K); null: the label's cap.
   */
  @Column('integer', { name: 'message_cap', nullable: true })
  messageCap: number | null;

  /** Business-initiated messaging restricted by the channel: marketing sends pause while it lasts. */
  @Column('boolean')
  restricted: boolean;

  /** When the restriction ends; null while restricted: until the channel lifts it. */
  @Column('timestamptz', { name: 'restricted_until', nullable: true })
  restrictedUntil: Date | null;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', name: 'updated_at' })
  updatedAt: Date;
}
