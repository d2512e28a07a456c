import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export const APP_STATUSES = ['INACTIVE', 'ACTIVE', 'BLOCKED'] as const;
export type AppStatus = (typeof APP_STATUSES)[number];

/** Messaging tiers: the cap on unique recipients of business-initiated conversations per 24 hours. */
export const MESSAGE_LIMITS = [
  'TIER_50',
  'TIER_250',
  'TIER_2K',
  'TIER_10K',
  'TIER_100K',
  'TIER_NOT_SET',
  'TIER_UNLIMITED',
] as const;
export type MessageLimit = (typeof MESSAGE_LIMITS)[number];

export const PHONE_QUALITIES = ['GREEN', 'YELLOW', 'RED', 'UNKNOWN'] as const;
export type PhoneQuality = (typeof PHONE_QUALITIES)[number];

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

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', name: 'updated_at' })
  updatedAt: Date;
}
