import { Column, Entity, PrimaryColumn } from 'typeorm';
import type {
  CampaignDefinition,
  CampaignPauseReason,
  CampaignSkipReason,
  CampaignState,
  FailoverStep,
  GatewaySendChannel,
} from '@app/contracts';
import { decimal } from '../database/decimal.transformer';

/** A campaign of a gateway account: its definition, its state and what its budget counts. */
@Entity({ name: 'campaigns' })
export class CampaignEntity {
  /** UUID v7 (time-ordered: lists are newest first by id). */
  @PrimaryColumn('uuid')
  id: string;

  @Column('uuid', { name: 'user_id' })
  userId: string;

  @Column('uuid', { name: 'account_id' })
  accountId: string;

  @Column('text')
  name: string;

  @Column('jsonb')
  definition: CampaignDefinition;

  @Column('text')
  state: CampaignState;

  @Column('text', { name: 'pause_reason', nullable: true })
  pauseReason: CampaignPauseReason | null;

  @Column('text', { name: 'pause_detail', nullable: true })
  pauseDetail: string | null;

  /** The WhatsApp app whose template it sends, set at launch. */
  @Column('integer', { name: 'template_app_id', nullable: true })
  templateAppId: number | null;

  /** Recipients loaded at launch. */
  @Column('integer')
  recipients: number;

  /** The price its next recipient waits to fit in the budget (holds in flight may free room); null when not waiting. */
  @Column('numeric', { name: 'budget_wait', precision: 20, scale: 4, transformer: decimal, nullable: true })
  budgetWait: number | null;

  /** The runner's last tick of it: its pace is credited from then. */
  @Column('timestamptz', { name: 'last_tick_at', nullable: true })
  lastTickAt: Date | null;

  /** WhatsApp-first recipients wait until then (the tier frees a place). */
  @Column('timestamptz', { name: 'whatsapp_wait_until', nullable: true })
  whatsappWaitUntil: Date | null;

  @Column('timestamptz', { name: 'created_at' })
  createdAt: Date;

  @Column('timestamptz', { name: 'updated_at' })
  updatedAt: Date;

  @Column('timestamptz', { name: 'launched_at', nullable: true })
  launchedAt: Date | null;

  /** The key it was launched with: the same key launching again answers it (null for a draft). */
  @Column('text', { name: 'launch_key', nullable: true })
  launchKey: string | null;

  @Column('timestamptz', { name: 'started_at', nullable: true })
  startedAt: Date | null;

  @Column('timestamptz', { name: 'completed_at', nullable: true })
  completedAt: Date | null;
}

/** One recipient of a campaign, in audience order; once sent, with its message. */
@Entity({ name: 'campaign_recipients' })
export class CampaignRecipientEntity {
  @PrimaryColumn('uuid', { name: 'campaign_id' })
  campaignId: string;

  @PrimaryColumn('integer')
  seq: number;

  @Column('text', { name: 'contact_id' })
  contactId: string;

  @Column('text', { name: 'external_id', nullable: true })
  externalId: string | null;

  @Column('text', { name: 'time_zone' })
  timeZone: string;

  /** The channels to try, each with its sender (a bot's sealed credential: never answered). */
  @Column('jsonb')
  route: FailoverStep[];

  @Column('text', { name: 'first_channel', nullable: true })
  firstChannel: GatewaySendChannel | null;

  @Column('jsonb')
  params: string[];

  /** The index of its variant in the campaign's `variants`; null without variants. */
  @Column('smallint', { nullable: true })
  variant: number | null;

  @Column('text')
  state: 'pending' | 'queued' | 'skipped';

  @Column('text', { name: 'skip_reason', nullable: true })
  skipReason: CampaignSkipReason | null;

  /** The first attempt's id. */
  @Column('text', { name: 'message_id', nullable: true })
  messageId: string | null;

  @Column('text', { nullable: true })
  channel: GatewaySendChannel | null;

  /** When a pending recipient is due. */
  @Column('timestamptz', { name: 'next_at' })
  nextAt: Date;

  /** A runner holds it until then. */
  @Column('timestamptz', { name: 'claimed_until', nullable: true })
  claimedUntil: Date | null;

  /**
   * The most its message may hold (the dearest channel of its route), kept while a runner holds it
   * for a send and while its failover route has channels left: what the budget counts for it then.
   */
  @Column('numeric', { precision: 20, scale: 4, transformer: decimal, nullable: true })
  reserved: number | null;

  @Column('timestamptz', { name: 'queued_at', nullable: true })
  queuedAt: Date | null;

  @Column('timestamptz', { name: 'updated_at' })
  updatedAt: Date;
}
