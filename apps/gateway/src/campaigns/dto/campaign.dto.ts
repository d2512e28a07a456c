import {
  SendContent,
  CAMPAIGN_PAUSE_REASONS,
  CAMPAIGN_STATES,
  CampaignAudience,
  CampaignButtonReplies,
  CampaignCounts,
  CampaignPauseReason,
  CampaignState,
  CampaignView,
  GatewaySendChannel,
  ListCampaignsResult,
} from '@app/contracts';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CampaignAudienceDto, CampaignDefinitionDto } from './campaign-definition.dto';
import { CampaignVariantResultDto } from './campaign-variant.dto';
import { SendContentDto } from '../../messages/dto/send-gateway-message.dto';
import { ApiNextCursor } from '../../paging/cursor-page.dto';
import { ApiUnixSeconds } from '../../openapi/unix-seconds.decorator';

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

  @ApiProperty({ example: 2.35, description: 'What the budget counts: held + spent (a released hold counts nothing)' })
  committed: number;
}

/**
 * A campaign's schedule as the gateway answers it: Unix seconds whichever form it was written in
 * (a definition takes ISO 8601 with a zone too, CampaignScheduleDto).
 */
export class CampaignScheduleAnswerDto {
  @ApiUnixSeconds({ optional: true, nullable: true, description: 'when sending starts; absent or null: at launch' })
  start_at?: number | null;

  @ApiUnixSeconds({
    optional: true,
    nullable: true,
    description: 'recipients not sent by then are skipped as end_by_passed',
  })
  end_by?: number | null;
}

/** How often one button (list row, flow) was the reply. */
export class CampaignButtonRepliesDto implements CampaignButtonReplies {
  @ApiProperty({ example: 'yes' })
  id: string;

  @ApiProperty({ type: String, nullable: true, example: 'Yes, please' })
  title: string | null;

  @ApiProperty({ example: 18 })
  count: number;

  @ApiProperty({ example: 0.0632, description: 'count over the recipients whose message was accepted (0 to 1)' })
  rate: number;
}

export class CampaignDto extends CampaignDefinitionDto implements CampaignView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ type: CampaignAudienceDto })
  declare audience: CampaignAudience;

  @ApiPropertyOptional({ type: SendContentDto, nullable: true })
  declare content?: SendContent | null;

  @ApiProperty({ type: [String], example: ['Anna'] })
  declare params: string[];

  @ApiPropertyOptional({ type: CampaignScheduleAnswerDto, nullable: true })
  declare schedule?: CampaignScheduleAnswerDto | null;

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

  @ApiUnixSeconds({ nullable: true, description: 'at the current pace; null when not running' })
  estimated_finish_at: number | null;

  @ApiUnixSeconds()
  created_at: number;

  @ApiUnixSeconds()
  updated_at: number;

  @ApiUnixSeconds({ nullable: true })
  launched_at: number | null;

  @ApiUnixSeconds({ nullable: true })
  started_at: number | null;

  @ApiUnixSeconds({ nullable: true })
  completed_at: number | null;

  @ApiPropertyOptional({ type: [CampaignVariantResultDto], description: 'With variants: how each did, in their order' })
  variant_results?: CampaignVariantResultDto[];

  @ApiPropertyOptional({
    example: 42,
    description: 'With tracked links: recipients who clicked one (people, once each)',
  })
  clicked?: number;

  @ApiProperty({ example: 25, description: 'Recipients who replied to their message, once each' })
  replied: number;

  @ApiProperty({
    type: [CampaignButtonRepliesDto],
    description: 'Button, list and flow replies by the id pressed, most pressed first',
  })
  replies_by_button: CampaignButtonRepliesDto[];
}

export class CampaignPageDto implements ListCampaignsResult {
  @ApiProperty({ type: [CampaignDto] })
  data: CampaignDto[];

  @ApiNextCursor()
  next_cursor: string | null;
}
