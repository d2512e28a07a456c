import {
  CAMPAIGN_RECIPIENT_STATUSES,
  CAMPAIGN_SKIP_REASONS,
  CampaignRecipientReply,
  CampaignRecipientStatus,
  CampaignRecipientView,
  CampaignSkipReason,
  GATEWAY_SEND_CHANNELS,
  GatewaySendChannel,
  ListCampaignRecipientsResult,
} from '@app/contracts';
import { ApiProperty } from '@nestjs/swagger';
import { ApiUnixSeconds } from '../../openapi/unix-seconds.decorator';

/** A recipient's reply to its message (docs/campaigns.md#replies). */
export class CampaignRecipientReplyDto implements CampaignRecipientReply {
  @ApiProperty({
    example: 'button',
    description: "button, list or flow for a press; else the inbound content's type (text, image, ...)",
  })
  kind: string;

  @ApiProperty({ type: String, nullable: true, example: 'yes', description: "The button's, row's or flow's id" })
  id: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'Yes, please' })
  title: string | null;

  @ApiProperty({ type: String, nullable: true, description: "The text or caption; a button's title" })
  text: string | null;
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

  @ApiUnixSeconds({ nullable: true })
  queued_at: number | null;

  @ApiUnixSeconds({ nullable: true })
  updated_at: number | null;

  @ApiUnixSeconds({ nullable: true, description: 'when a pending recipient is due' })
  next_attempt_at: number | null;

  @ApiProperty({ type: String, nullable: true, example: 'Discount', description: "With variants: its variant's name" })
  variant: string | null;

  @ApiUnixSeconds({ nullable: true, description: 'when it first replied to its message' })
  replied_at: number | null;

  @ApiProperty({
    type: CampaignRecipientReplyDto,
    nullable: true,
    description: 'Its first reply (a later button press replaces a plain answer once)',
  })
  reply: CampaignRecipientReplyDto | null;
}

export class CampaignRecipientPageDto implements ListCampaignRecipientsResult {
  @ApiProperty({ type: [CampaignRecipientDto] })
  data: CampaignRecipientDto[];

  @ApiProperty({ type: Number, nullable: true, description: 'Pass as after for the next page; null on the last' })
  next_after: number | null;
}
