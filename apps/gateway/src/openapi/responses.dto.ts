import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import {
  CAMPAIGN_PAUSE_REASONS,
  CAMPAIGN_RECIPIENT_STATUSES,
  CAMPAIGN_SKIP_REASONS,
  CAMPAIGN_STATES,
  CampaignAudience,
  CampaignCounts,
  CampaignPauseReason,
  CampaignRecipientStatus,
  CampaignRecipientView,
  CampaignSkipReason,
  CampaignState,
  CampaignView,
  ListCampaignRecipientsResult,
  ListCampaignsResult,
  CONSENT_PURPOSES,
  CONSENT_SOURCES,
  CONSENT_STATES,
  ConsentHistoryEntry,
  ConsentPurpose,
  ConsentSettings,
  ConsentSource,
  ConsentState,
  ConsentStateView,
  GATEWAY_SEND_CHANNELS,
  GatewaySendChannel,
  MESSAGE_CATEGORIES,
  MESSAGE_STATUSES,
  MessageAttempt,
  MessageCategory,
  MessageStatus,
} from '@app/contracts';
import { CONNECTION_CHANNELS } from '../connections/connection.entity';
import { MessageChargeDto, MessageFailureDto, MessageTimelineEntryDto } from '@app/server';
import { ConnectionView } from '../connections/connections.service';
import { COURSE_EVENT_STATUSES } from '../course/course.repository';
import { CourseEventView, CourseRuleView } from '../course/course.service';
import { ContactConsentView, ContactView } from '../contacts/contacts.service';
import { ImportState, Rejection } from '../contacts/imports/contact-imports.repository';
import { ImportFormat } from '../contacts/imports/import-rows';
import { ImportView } from '../contacts/imports/contact-imports.service';
import { GatewayMessageReport } from '../messages/gateway-messages.service';
import {
  CampaignEstimate,
  ESTIMATE_LIMITS,
  EstimateExclusion,
  EstimateLimit,
  EstimateLimitView,
} from '../campaigns/campaign-estimate';
import { CampaignAudienceDto, CampaignDefinitionDto } from '../campaigns/dto/campaign-definition.dto';

/**
 * The gateway's answers as its OpenAPI document shows them. The controllers return the services'
 * views; these classes only describe them, and implement the views so that the compiler checks
 * they show every field.
 */

export class ConnectionBotDto {
  @ApiProperty({ example: '7012345678' })
  id: string;

  @ApiProperty({ type: String, nullable: true, example: 'demo_shop_bot' })
  username: string | null;
}

export class ConnectionDto implements ConnectionView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ enum: CONNECTION_CHANNELS })
  channel: string;

  @ApiProperty({ enum: ['active', 'failing', 'disconnected'] })
  state: string;

  @ApiPropertyOptional({ example: 12, description: 'whatsapp: the linked api app' })
  app_id?: number;

  @ApiPropertyOptional({ type: ConnectionBotDto, description: 'telegram, max: the bot' })
  bot?: ConnectionBotDto;

  @ApiPropertyOptional({
    description: 'A live bot or course connection: where the channel or the platform posts to the gateway',
  })
  inbound_url?: string;

  @ApiPropertyOptional({ description: 'course: where status events are posted (with events_path)' })
  base_url?: string;

  @ApiPropertyOptional({ example: '/messaging/events' })
  events_path?: string;

  @ApiPropertyOptional({ description: 'course: the secret the platform sends with its events; shown once, on create' })
  secret?: string;

  @ApiProperty({ description: 'Unix seconds' })
  created_at: number;

  @ApiProperty({ description: 'Unix seconds' })
  updated_at: number;
}

/** One attempt of a message sent over a failover route. */
export class MessageAttemptDto implements MessageAttempt {
  @ApiProperty({ enum: GATEWAY_SEND_CHANNELS })
  channel: string;

  @ApiProperty({ enum: MESSAGE_STATUSES })
  status: MessageStatus;

  @ApiProperty({ type: MessageFailureDto, nullable: true })
  failure: MessageFailureDto | null;

  @ApiProperty({ description: 'Unix seconds' })
  created_at: number;

  @ApiProperty({ description: 'Unix seconds' })
  updated_at: number;
}

/** The one delivery report of a message, whatever its channel: never its content. */
export class MessageReportDto extends MessageChargeDto implements GatewayMessageReport {
  @ApiProperty({ example: '019a8d6e-3b7c-7f11-9e2a-5b6c7d8e9f00' })
  id: string;

  @ApiProperty({
    enum: GATEWAY_SEND_CHANNELS,
    description: 'The channel it went on; over a failover route, the one that carried it (the last attempt)',
  })
  channel: string;

  @ApiProperty({ enum: MESSAGE_STATUSES })
  status: MessageStatus;

  @ApiProperty({ enum: MESSAGE_CATEGORIES })
  category: MessageCategory;

  @ApiProperty({ type: String, nullable: true, example: '4242**', description: 'The recipient, masked' })
  to: string | null;

  @ApiProperty({ example: 0 })
  price: number;

  @ApiProperty({ example: 'USD' })
  currency: string;

  @ApiProperty({ description: 'Unix seconds' })
  created_at: number;

  @ApiProperty({ description: 'Unix seconds' })
  updated_at: number;

  @ApiProperty({ type: MessageFailureDto, nullable: true })
  failure: MessageFailureDto | null;

  @ApiProperty({ type: [MessageTimelineEntryDto] })
  timeline: MessageTimelineEntryDto[];

  @ApiProperty({ description: "The message's tracking pixel: loading it marks the message READ (once)" })
  pixel_url: string;

  @ApiPropertyOptional({
    type: [MessageAttemptDto],
    description: 'A send to a contact over a failover route: every attempt, in order (docs/failover.md)',
  })
  attempts?: MessageAttemptDto[];
}

export class MessageReportPageDto {
  @ApiProperty({ type: [MessageReportDto] })
  data: MessageReportDto[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass as cursor for the next page; null on the last' })
  next_cursor: string | null;
}

export class CourseRuleDto implements CourseRuleView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid' })
  connection_id: string;

  @ApiProperty({ example: 'payment' })
  event_type: string;

  @ApiProperty({ enum: GATEWAY_SEND_CHANNELS })
  channel: string;

  @ApiProperty({ example: 'payment_received' })
  template: string;

  @ApiProperty({ type: String, nullable: true, example: 'en' })
  language: string | null;

  @ApiProperty({ example: 'user.phone' })
  recipient_field: string;

  @ApiProperty({ type: [String], example: ['user.first_name'] })
  params: string[];

  @ApiProperty({ description: 'Unix seconds' })
  created_at: number;
}

/** A course event as its account sees it: what happened to it, never the event's body. */
export class CourseEventDto implements CourseEventView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid' })
  connection_id: string;

  @ApiProperty({ description: "The platform's id of the event" })
  event_id: string;

  @ApiProperty({ type: String, nullable: true, example: 'payment' })
  type: string | null;

  @ApiProperty({ enum: COURSE_EVENT_STATUSES })
  status: string;

  @ApiProperty({ type: String, nullable: true })
  reason: string | null;

  @ApiProperty({ type: [String] })
  message_ids: string[];

  @ApiProperty({ description: 'Unix seconds' })
  received_at: number;

  @ApiProperty({ type: Number, nullable: true, description: 'Unix seconds' })
  processed_at: number | null;
}

export class CourseEventPageDto {
  @ApiProperty({ type: [CourseEventDto] })
  data: CourseEventDto[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass as cursor for the next page; null on the last' })
  next_cursor: string | null;
}

/** A contact's identity on each channel: WhatsApp phone, Telegram chat id, MAX user id. */
export class ContactIdentitiesDto implements Record<GatewaySendChannel, string | null> {
  @ApiProperty({ type: String, nullable: true, example: '79990001122' })
  whatsapp: string | null;

  @ApiProperty({ type: String, nullable: true, example: '7012345678' })
  telegram: string | null;

  @ApiProperty({ type: String, nullable: true, example: null })
  max: string | null;
}

export class ContactDto implements ContactView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ type: String, nullable: true, example: 'crm-1042', description: "The business's own id" })
  external_id: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'Anna Petrova' })
  name: string | null;

  @ApiProperty({ type: ContactIdentitiesDto })
  identities: ContactIdentitiesDto;

  @ApiProperty({ example: 'Europe/Moscow', description: "The contact's own, or the account's when it names none" })
  time_zone: string;

  @ApiProperty({ type: String, nullable: true, example: 'ru' })
  language: string | null;

  @ApiProperty({
    type: 'object',
    additionalProperties: { oneOf: [{ type: 'string' }, { type: 'number' }] },
    example: { plan: 'pro', orders: 3 },
  })
  attributes: Record<string, string | number>;

  @ApiProperty({ type: [String], example: ['customers'] })
  lists: string[];

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
  updated_at: string;
}

export class ContactPageDto {
  @ApiProperty({ type: [ContactDto] })
  data: ContactDto[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass as cursor for the next page; null on the last' })
  next_cursor: string | null;
}

/** One purpose's consent on one channel address of a contact. */
export class ConsentStateDto implements ConsentStateView {
  @ApiProperty({ enum: GATEWAY_SEND_CHANNELS })
  channel: GatewaySendChannel;

  @ApiProperty({ example: '79990001122' })
  address: string;

  @ApiProperty({ enum: CONSENT_PURPOSES })
  purpose: ConsentPurpose;

  @ApiProperty({ enum: CONSENT_STATES })
  state: ConsentState;

  @ApiProperty({ enum: CONSENT_SOURCES, nullable: true, description: 'Where the last change came from' })
  source: ConsentSource | null;

  @ApiProperty({ type: Number, nullable: true, description: 'Unix seconds; null when never set' })
  since: number | null;
}

/** One recorded change of consent. */
export class ConsentHistoryEntryDto implements ConsentHistoryEntry {
  @ApiProperty({ enum: GATEWAY_SEND_CHANNELS })
  channel: GatewaySendChannel;

  @ApiProperty({ enum: CONSENT_PURPOSES })
  purpose: ConsentPurpose;

  @ApiProperty({ enum: CONSENT_STATES })
  state: ConsentState;

  @ApiProperty({ enum: CONSENT_SOURCES })
  source: ConsentSource;

  @ApiProperty({ type: String, nullable: true })
  evidence: string | null;

  @ApiProperty({ description: 'Unix seconds' })
  at: number;
}

export class ContactConsentDto implements ContactConsentView {
  @ApiProperty({ type: [ConsentStateDto], description: "Both purposes of each of the contact's channels" })
  states: ConsentStateDto[];

  @ApiProperty({ type: [ConsentHistoryEntryDto], description: 'Changes, newest first (at most 100)' })
  history: ConsentHistoryEntryDto[];
}

/** The business's consent settings (docs/consent.md#settings). */
export class ConsentSettingsDto implements ConsentSettings {
  @ApiProperty({ description: 'Marketing needs an explicit opted_in; unknown is refused like opted_out' })
  marketing_requires_opt_in: boolean;

  @ApiProperty({ type: [String], example: ['STOP', 'UNSUBSCRIBE'], description: 'Inbound texts that opt out' })
  opt_out_keywords: string[];

  @ApiProperty({ type: [String], example: ['START'], description: 'Inbound texts that opt back in' })
  opt_in_keywords: string[];
}

/** A rejected row of an import. */
export class ImportRejectionDto implements Rejection {
  @ApiProperty({ example: 7, description: 'The row number (1 is the first row of data)' })
  row: number;

  @ApiProperty({
    type: String,
    nullable: true,
    example: 'crm-1042',
    description: 'The external id the row gives, as written (null when it gives none)',
  })
  external_id: string | null;

  @ApiProperty({ example: 'identities.whatsapp' })
  field: string;

  @ApiProperty({
    example:
      "must be a phone number: international (+7 999 000-05-00, or the digits 79990000500), or national with the account's default region",
  })
  reason: string;
}

/** A contact import: its state, counts and a page of rejected rows. */
export class ContactImportDto implements ImportView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ enum: ['csv', 'ndjson'] })
  format: ImportFormat;

  @ApiProperty({ enum: ['receiving', 'processing', 'completed', 'failed'] })
  state: ImportState;

  @ApiProperty({ example: 1000 })
  rows_read: number;

  @ApiProperty({ example: 990 })
  created: number;

  @ApiProperty({ example: 0 })
  updated: number;

  @ApiProperty({ example: 0 })
  unchanged: number;

  @ApiProperty({ example: 10 })
  rejected: number;

  @ApiProperty({
    example: 0,
    description: 'Rows imported whose consent column the consent rules refused (listed among rejections)',
  })
  consent_refused: number;

  @ApiProperty({ type: String, nullable: true, description: 'Why a failed import stopped' })
  failure: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  finished_at: string | null;

  @ApiProperty({ type: [ImportRejectionDto], description: 'Rejected rows in order, a page at a time' })
  rejections: ImportRejectionDto[];

  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Pass as after_row for the next page of rejections; null on the last',
  })
  next_after_row: number | null;
}

/** Recipients per status (a recipient's status is its message's, the last attempt's over a failover route). */
export class CampaignCountsDto implements CampaignCounts {
  @ApiProperty({ example: 120 })
  pending: number;

  @ApiProperty({ example: 3, description: 'Never sent: see each recipient’s skip_reason' })
  skipped: number;

  @ApiProperty({ example: 10 })
  queued: number;

  @ApiProperty({ example: 40 })
  sent: number;

  @ApiProperty({ example: 100 })
  delivered: number;

  @ApiProperty({ example: 25 })
  read: number;

  @ApiProperty({ example: 2 })
  failed: number;
}

export class CampaignChannelsUsedDto implements Partial<Record<GatewaySendChannel, number>> {
  @ApiPropertyOptional({ example: 200 })
  whatsapp?: number;

  @ApiPropertyOptional({ example: 85 })
  telegram?: number;

  @ApiPropertyOptional()
  max?: number;
}

export class CampaignMoneyDto {
  @ApiProperty({ type: String, nullable: true, example: 'USD' })
  currency: string | null;

  @ApiProperty({ example: 0.25, description: 'Holds of messages in flight' })
  held: number;

  @ApiProperty({ example: 2.1, description: 'Captured' })
  spent: number;

  @ApiProperty({ example: 2.35, description: 'What the budget counts' })
  committed: number;
}

export class CampaignDto extends CampaignDefinitionDto implements CampaignView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ type: CampaignAudienceDto })
  declare audience: CampaignAudience;

  @ApiProperty({ type: [String], example: ['Anna'] })
  declare params: string[];

  @ApiProperty({ enum: CAMPAIGN_STATES })
  state: CampaignState;

  @ApiProperty({ enum: CAMPAIGN_PAUSE_REASONS, nullable: true })
  pause_reason: CampaignPauseReason | null;

  @ApiProperty({ type: String, nullable: true, description: 'Human words for the pause' })
  pause_detail: string | null;

  @ApiProperty({ example: 300, description: 'Recipients loaded at launch (excluded ones included)' })
  recipients: number;

  @ApiProperty({ type: CampaignCountsDto })
  counts: CampaignCountsDto;

  @ApiProperty({ type: CampaignChannelsUsedDto, description: 'Recipients by the channel that carried their message' })
  channels_used: CampaignChannelsUsedDto;

  @ApiProperty({ type: CampaignMoneyDto })
  money: CampaignMoneyDto;

  @ApiProperty({ example: 12.5, description: 'Messages accepted per second over the last minute' })
  current_rate: number;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'At the current pace; null when not running',
  })
  estimated_finish_at: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
  updated_at: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  launched_at: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  started_at: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  completed_at: string | null;
}

export class CampaignPageDto implements ListCampaignsResult {
  @ApiProperty({ type: [CampaignDto] })
  data: CampaignDto[];

  @ApiProperty({ type: String, nullable: true, description: 'Pass as cursor for the next page; null on the last' })
  next_cursor: string | null;
}

/** `PATCH /v1/campaigns/{id}`: the fields to change; null clears an optional one. */
export class CampaignPatchDto extends PartialType(CampaignDefinitionDto) {}

export class CampaignExcludedDto implements Record<EstimateExclusion, number> {
  @ApiProperty({ example: 10, description: 'Consent refuses every channel of the route' })
  opted_out: number;

  @ApiProperty({ example: 5, description: 'No identity on any of the channels the account has a live connection of' })
  no_identity: number;

  @ApiProperty({ example: 0, description: 'A contact named twice' })
  duplicate: number;

  @ApiProperty({ example: 0, description: 'A field a param refers to is empty' })
  missing_param: number;
}

export class CampaignChannelEstimateDto {
  @ApiProperty({ example: 200, description: 'Recipients whose first channel consent allows is this one' })
  recipients: number;

  @ApiProperty({ example: 0.0125, description: "One message's price for the template's category" })
  price: number;

  @ApiProperty({ example: 2.5 })
  cost: number;
}

type CampaignChannelEstimates = CampaignEstimate['channels'];

export class CampaignChannelEstimatesDto implements CampaignChannelEstimates {
  @ApiPropertyOptional({ type: CampaignChannelEstimateDto })
  whatsapp?: CampaignChannelEstimateDto;

  @ApiPropertyOptional({ type: CampaignChannelEstimateDto })
  telegram?: CampaignChannelEstimateDto;

  @ApiPropertyOptional({ type: CampaignChannelEstimateDto })
  max?: CampaignChannelEstimateDto;
}

export class CampaignCostEstimateDto {
  @ApiProperty({ example: 3.35 })
  total: number;

  @ApiProperty({ example: 'USD' })
  currency: string;

  @ApiProperty({ example: 100, description: 'What the balance can still hold' })
  balance: number;

  @ApiProperty({ example: 285, description: 'How many recipients, in audience order, the balance covers' })
  covered_recipients: number;

  @ApiProperty({ type: Number, nullable: true, example: null, description: "The campaign's budget" })
  budget: number | null;

  @ApiProperty({
    type: Number,
    nullable: true,
    example: null,
    description: 'How many recipients, in audience order, the budget covers; null without a budget',
  })
  budget_covered_recipients: number | null;
}

export class CampaignTimeEstimateDto {
  @ApiProperty({ example: 7 })
  seconds: number;

  @ApiProperty({ format: 'date-time' })
  finish_at: string;

  @ApiProperty({ enum: ESTIMATE_LIMITS, example: 'pacing' })
  limited_by: EstimateLimit;
}

export class CampaignLimitDto implements EstimateLimitView {
  @ApiProperty({ enum: ESTIMATE_LIMITS })
  limit: EstimateLimit;

  @ApiPropertyOptional({ enum: GATEWAY_SEND_CHANNELS })
  channel?: GatewaySendChannel;

  @ApiPropertyOptional({ example: 80, description: 'pacing, rate: messages per second' })
  per_second?: number;

  @ApiPropertyOptional({ example: 1000, description: 'tier: unique WhatsApp recipients per 24 hours' })
  per_day?: number;

  @ApiPropertyOptional({ example: 1, description: 'tier: the days past today the campaign goes on' })
  days?: number;

  @ApiPropertyOptional({ example: 0.5, description: 'quiet_hours: the share of a day outside quiet hours' })
  allowed_fraction?: number;

  @ApiProperty({ example: 3, description: 'How long this limit alone would take' })
  seconds: number;
}

export class CampaignEstimateDto implements CampaignEstimate {
  @ApiProperty({ example: 300, description: 'Contacts of the audience' })
  audience: number;

  @ApiProperty({ example: 285, description: 'Those a launch would send to' })
  recipients: number;

  @ApiProperty({ type: CampaignExcludedDto })
  excluded: CampaignExcludedDto;

  @ApiProperty({ type: CampaignChannelEstimatesDto })
  channels: CampaignChannelEstimatesDto;

  @ApiProperty({ type: CampaignCostEstimateDto })
  cost: CampaignCostEstimateDto;

  @ApiProperty({ type: CampaignTimeEstimateDto })
  time: CampaignTimeEstimateDto;

  @ApiProperty({ type: [CampaignLimitDto] })
  limits: CampaignLimitDto[];

  @ApiProperty({ type: [String], example: ['the balance covers 120 of 285 recipients'] })
  warnings: string[];
}

export class CampaignRecipientDto implements CampaignRecipientView {
  @ApiProperty({ example: 1, description: 'Audience order, from 1' })
  seq: number;

  @ApiProperty({ format: 'uuid' })
  contact_id: string;

  @ApiProperty({ type: String, nullable: true, example: 'crm-1042' })
  external_id: string | null;

  @ApiProperty({ enum: CAMPAIGN_RECIPIENT_STATUSES })
  status: CampaignRecipientStatus;

  @ApiProperty({ enum: CAMPAIGN_SKIP_REASONS, nullable: true })
  skip_reason: CampaignSkipReason | null;

  @ApiProperty({ enum: GATEWAY_SEND_CHANNELS, nullable: true, description: 'The channel that carried the message' })
  channel: GatewaySendChannel | null;

  @ApiProperty({ type: String, nullable: true })
  message_id: string | null;

  @ApiProperty({ type: String, nullable: true })
  failure_code: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  queued_at: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  updated_at: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When a pending recipient is due' })
  next_attempt_at: string | null;
}

export class CampaignRecipientPageDto implements ListCampaignRecipientsResult {
  @ApiProperty({ type: [CampaignRecipientDto] })
  data: CampaignRecipientDto[];

  @ApiProperty({ type: Number, nullable: true, description: 'Pass as after for the next page; null on the last' })
  next_after: number | null;
}
