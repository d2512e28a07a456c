import { GATEWAY_SEND_CHANNELS, GatewaySendChannel } from '@app/contracts';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  CampaignEstimate,
  ESTIMATE_LIMITS,
  ESTIMATE_WARNINGS,
  EstimateExclusion,
  EstimateLimit,
  EstimateLimitView,
  EstimateWarning,
  EstimateWarningCode,
} from '../campaign-estimate';
import { ApiUnixSeconds } from '../../openapi/unix-seconds.decorator';

export class CampaignExcludedDto implements Record<EstimateExclusion, number> {
  @ApiProperty({ example: 10, description: 'Consent refuses every channel of the route' })
  opted_out: number;

  @ApiProperty({ example: 5, description: 'No identity on any of the channels the account has a live connection of' })
  no_identity: number;

  @ApiProperty({ example: 0, description: 'A contact named twice' })
  duplicate: number;

  @ApiProperty({ example: 0, description: 'A field a param refers to is empty' })
  missing_param: number;

  @ApiProperty({
    example: 0,
    description: 'The contact already had as many marketing messages in the period as the frequency cap allows',
  })
  frequency_cap: number;

  @ApiProperty({ example: 0, description: 'The contact had this template within the recent-template days' })
  recent_template: number;

  @ApiProperty({
    example: 0,
    description:
      'A content campaign: the contact is reachable on WhatsApp alone, its 24-hour window is closed and the campaign names no fallback_template',
  })
  window_closed: number;
}

export class CampaignWarningDto implements EstimateWarning {
  @ApiProperty({ enum: ESTIMATE_WARNINGS, example: 'unknown_list' })
  code: EstimateWarningCode;

  @ApiProperty({ example: 'no contact of the account is in the list "custmers"' })
  detail: string;

  @ApiPropertyOptional({ example: 'custmers', description: 'unknown_list: the list no contact is in' })
  list?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'no_match: the filter (or list) that matched no contact, as written',
  })
  filter?: Record<string, unknown>;
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
  @ApiProperty({ example: 7.4, description: 'Seconds from the start to the last recipient sent, to a tenth' })
  seconds: number;

  @ApiUnixSeconds()
  finish_at: number;

  @ApiProperty({ enum: ESTIMATE_LIMITS, example: 'pacing' })
  limited_by: EstimateLimit;
}

export class CampaignLimitDto implements EstimateLimitView {
  @ApiProperty({ enum: ESTIMATE_LIMITS })
  limit: EstimateLimit;

  @ApiPropertyOptional({ enum: GATEWAY_SEND_CHANNELS })
  channel?: GatewaySendChannel;

  @ApiPropertyOptional({
    example: 80,
    description: 'pacing, rate: messages per second; runner: the most it sends per second whatever the pacing',
  })
  per_second?: number;

  @ApiPropertyOptional({ example: 1000, description: 'tier: unique WhatsApp recipients per 24 hours' })
  per_day?: number;

  @ApiPropertyOptional({ example: 1, description: 'tier: the days past today the campaign goes on' })
  days?: number;

  @ApiPropertyOptional({
    example: 120,
    description:
      'quiet_hours: the recipients inside their quiet hours when their sends would run, sent once they end; end_by: the recipients not sent by then (skipped)',
  })
  recipients?: number;

  @ApiProperty({ example: 3.2, description: 'How long this limit alone would take, in seconds to a tenth' })
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

  @ApiProperty({ type: [CampaignWarningDto] })
  warnings: CampaignWarningDto[];
}
