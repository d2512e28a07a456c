import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CAMPAIGN_LIMITS, CONTACT_LIMITS, GATEWAY_SEND_CHANNELS, GatewaySendChannel } from '@app/contracts';
import { SendContentDto } from '../../messages/dto/send-gateway-message.dto';
import { CampaignVariantDto } from './campaign-variant.dto';
import { FrequencyRulesDto } from './campaign-settings.dto';

/**
 * A schedule's time as a client may send it: the form it reads in answers (Unix seconds) or ISO
 * 8601. Each branch takes null (OpenAPI 3.0 allows nullable only beside a type), hence anyOf.
 */
const CAMPAIGN_TIME = [
  { type: 'string', nullable: true, description: 'ISO 8601 with a zone, 0 to 9 fractional digits' },
  {
    type: 'integer',
    nullable: true,
    minimum: 0,
    maximum: CAMPAIGN_LIMITS.maxUnixSeconds,
    description: 'Unix seconds',
  },
];

/** Contacts in every list named and with every attribute equal. */
export class CampaignAudienceFilterDto {
  @ApiPropertyOptional({ type: [String], maxItems: CONTACT_LIMITS.lists, example: ['customers'] })
  lists?: string[];

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { oneOf: [{ type: 'string' }, { type: 'number' }] },
    maxProperties: CONTACT_LIMITS.attributes,
    example: { plan: 'pro' },
  })
  attributes?: Record<string, string | number>;
}

/** Exactly one of `list`, `contact_ids`, `filter`. */
export class CampaignAudienceDto {
  @ApiPropertyOptional({ example: 'customers', description: "Every contact in the account's list of this name" })
  list?: string;

  @ApiPropertyOptional({
    type: [String],
    minItems: 1,
    maxItems: CAMPAIGN_LIMITS.contactIds,
    example: ['ext:crm-1042'],
    description: 'Contacts in this order, each an id or ext:<external id>',
  })
  contact_ids?: string[];

  @ApiPropertyOptional({ type: CampaignAudienceFilterDto })
  filter?: CampaignAudienceFilterDto;
}

export class CampaignScheduleDto {
  @ApiPropertyOptional({
    anyOf: CAMPAIGN_TIME,
    example: '2026-12-01T09:00:00+03:00',
    description: 'ISO 8601 with a zone, or Unix seconds; absent: at launch',
  })
  start_at?: string | number | null;

  @ApiPropertyOptional({
    anyOf: CAMPAIGN_TIME,
    example: '2026-12-02T21:00:00+03:00',
    description: 'Recipients not sent by then are skipped as end_by_passed',
  })
  end_by?: string | number | null;
}

export class CampaignQuietHoursDto {
  @ApiProperty({ example: '21:00', description: "Local time in each recipient's zone" })
  start: string;

  @ApiProperty({ example: '09:00' })
  end: string;
}

/**
 * `POST /v1/campaigns` (and, merged with the stored one, `PATCH /v1/campaigns/{id}`): what a
 * business defines. Unknown fields are refused. The body is checked by the definition's one check
 * (campaignDefinitionErrors in @app/contracts, which the api runs too); these classes describe it.
 */
export class CampaignDefinitionDto {
  @ApiProperty({ minLength: 1, maxLength: CAMPAIGN_LIMITS.nameLength, example: 'November sale' })
  name: string;

  @ApiPropertyOptional({
    example: 'sale_announcement',
    description:
      'The template sent: on WhatsApp an APPROVED template of the linked WhatsApp app, on Telegram and MAX a bot template of the name (POST /v1/templates), else the WhatsApp one rendered. Exactly one of template and content',
  })
  template?: string;

  @ApiPropertyOptional({
    type: SendContentDto,
    nullable: true,
    description:
      'A free-form message sent as it is (any content kind of POST /v1/messages but flow), checked against every channel of the campaign; on WhatsApp only to recipients whose 24-hour window is open. Exactly one of template and content',
  })
  content?: SendContentDto | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'sale_announcement',
    description:
      'With content: the template sent instead to recipients whose WhatsApp window is closed (language, params and media_url are its); without one they are skipped as window_closed',
  })
  fallback_template?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, example: 'en' })
  language?: string | null;

  @ApiPropertyOptional({
    type: [String],
    maxItems: CAMPAIGN_LIMITS.params,
    example: ['{{contact.name}}', '20%'],
    description:
      'One per template variable: text, in which {{contact.name}}, {{contact.external_id}}, {{contact.language}} and {{contact.attributes.<key>}} are filled from each contact',
  })
  params?: string[];

  @ApiPropertyOptional({ type: String, nullable: true, description: 'Media templates: an https URL' })
  media_url?: string | null;

  @ApiProperty({ type: CampaignAudienceDto })
  audience: CampaignAudienceDto;

  @ApiProperty({
    enum: GATEWAY_SEND_CHANNELS,
    isArray: true,
    example: ['whatsapp', 'telegram'],
    description: '1 to 3 distinct channels, tried in order',
  })
  channels: GatewaySendChannel[];

  @ApiPropertyOptional({ type: CampaignScheduleDto, nullable: true })
  schedule?: CampaignScheduleDto | null;

  @ApiPropertyOptional({ type: CampaignQuietHoursDto, nullable: true })
  quiet_hours?: CampaignQuietHoursDto | null;

  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    minimum: CAMPAIGN_LIMITS.minRate,
    maximum: CAMPAIGN_LIMITS.maxRate,
    example: 50,
  })
  rate?: number | null;

  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    exclusiveMinimum: true,
    minimum: 0,
    maximum: CAMPAIGN_LIMITS.maxBudget,
    example: 100,
  })
  budget?: number | null;

  @ApiPropertyOptional({
    type: [CampaignVariantDto],
    nullable: true,
    minItems: 2,
    maxItems: 4,
    description: "Templates sharing the audience by percentage; each contact is sent its variant's",
  })
  variants?: CampaignVariantDto[] | null;

  @ApiPropertyOptional({
    type: Boolean,
    nullable: true,
    description: 'Every https URL in the params becomes a short link on the gateway that records clicks',
  })
  track_links?: boolean | null;

  @ApiPropertyOptional({
    type: FrequencyRulesDto,
    nullable: true,
    description: "Overrides the account's frequency rules (GET /v1/campaigns/settings) field by field",
  })
  frequency?: FrequencyRulesDto | null;
}
