import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsNumber,
  IsObject,
  IsOptional,
  IsPositive,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { GATEWAY_SEND_CHANNELS, GatewaySendChannel } from '@app/contracts';
import { CONTACT_LIMITS } from '../../contacts/contact-fields';
import {
  IsMediaUrl,
  IsTemplateLanguage,
  IsTemplateName,
  IsTemplateParams,
  MAX_TEMPLATE_PARAMS,
} from '../../messages/dto/send-gateway-message.dto';

/** Most contacts an audience may name one by one. */
export const MAX_AUDIENCE_CONTACT_IDS = 10_000;
/** A date-time in ISO 8601 with its zone (`Z` or an offset). */
export const ZONED_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})$/;
/** A local time of day, 00:00 to 23:59. */
export const TIME_OF_DAY = /^([01]\d|2[0-3]):[0-5]\d$/;
export const MIN_RATE = 0.1;
export const MAX_RATE = 10_000;
export const MAX_BUDGET = 1e9;

/** Contacts in every list named and with every attribute equal. */
export class CampaignAudienceFilterDto {
  @ApiPropertyOptional({ type: [String], maxItems: CONTACT_LIMITS.lists, example: ['customers'] })
  @IsOptional()
  @IsArray()
  lists?: string[];

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { oneOf: [{ type: 'string' }, { type: 'number' }] },
    maxProperties: CONTACT_LIMITS.attributes,
    example: { plan: 'pro' },
  })
  @IsOptional()
  @IsObject()
  attributes?: Record<string, string | number>;
}

/** Exactly one of `list`, `contact_ids`, `filter`. */
export class CampaignAudienceDto {
  @ApiPropertyOptional({ example: 'customers', description: "Every contact in the account's list of this name" })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(CONTACT_LIMITS.listName)
  list?: string;

  @ApiPropertyOptional({
    type: [String],
    minItems: 1,
    maxItems: MAX_AUDIENCE_CONTACT_IDS,
    example: ['ext:crm-1042'],
    description: 'Contacts in this order, each an id or ext:<external id>',
  })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_AUDIENCE_CONTACT_IDS)
  @IsString({ each: true })
  contact_ids?: string[];

  @ApiPropertyOptional({ type: CampaignAudienceFilterDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => CampaignAudienceFilterDto)
  filter?: CampaignAudienceFilterDto;
}

export class CampaignScheduleDto {
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: '2026-12-01T09:00:00+03:00',
    description: 'ISO 8601 with a zone; absent: at launch',
  })
  @IsOptional()
  @IsString()
  @Matches(ZONED_TIME, { message: 'start_at must be an ISO 8601 date-time with a zone' })
  start_at?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: '2026-12-02T21:00:00+03:00',
    description: 'Recipients not sent by then are skipped as end_by_passed',
  })
  @IsOptional()
  @IsString()
  @Matches(ZONED_TIME, { message: 'end_by must be an ISO 8601 date-time with a zone' })
  end_by?: string | null;
}

export class CampaignQuietHoursDto {
  @ApiProperty({ example: '21:00', description: "Local time in each recipient's zone" })
  @IsString()
  @Matches(TIME_OF_DAY, { message: 'start must be a time of day HH:MM (00:00 to 23:59)' })
  start: string;

  @ApiProperty({ example: '09:00' })
  @IsString()
  @Matches(TIME_OF_DAY, { message: 'end must be a time of day HH:MM (00:00 to 23:59)' })
  end: string;
}

/**
 * `POST /v1/campaigns` (and, merged with the stored one, `PATCH /v1/campaigns/{id}`): what a
 * business defines. Unknown fields are refused.
 */
export class CampaignDefinitionDto {
  @ApiProperty({ minLength: 1, maxLength: 200, example: 'November sale' })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name: string;

  @ApiProperty({ example: 'sale_announcement', description: 'An APPROVED template of the linked WhatsApp app' })
  @IsTemplateName()
  template: string;

  @ApiPropertyOptional({ type: String, nullable: true, example: 'en' })
  @IsOptional()
  @IsTemplateLanguage()
  language?: string | null;

  @ApiPropertyOptional({
    type: [String],
    maxItems: MAX_TEMPLATE_PARAMS,
    example: ['{{contact.name}}', '20%'],
    description:
      'One per template variable: text, in which {{contact.name}}, {{contact.external_id}}, {{contact.language}} and {{contact.attributes.<key>}} are filled from each contact',
  })
  @IsOptional()
  @IsTemplateParams()
  params?: string[];

  @ApiPropertyOptional({ type: String, nullable: true, description: 'Media templates: an https URL' })
  @IsOptional()
  @IsMediaUrl()
  media_url?: string | null;

  @ApiProperty({ type: CampaignAudienceDto })
  @ValidateNested()
  @Type(() => CampaignAudienceDto)
  audience: CampaignAudienceDto;

  @ApiProperty({
    enum: GATEWAY_SEND_CHANNELS,
    isArray: true,
    example: ['whatsapp', 'telegram'],
    description: '1 to 3 distinct channels, tried in order',
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(3)
  @ArrayUnique()
  @IsIn(GATEWAY_SEND_CHANNELS, { each: true })
  channels: GatewaySendChannel[];

  @ApiPropertyOptional({ type: CampaignScheduleDto, nullable: true })
  @IsOptional()
  @ValidateNested()
  @Type(() => CampaignScheduleDto)
  schedule?: CampaignScheduleDto | null;

  @ApiPropertyOptional({ type: CampaignQuietHoursDto, nullable: true })
  @IsOptional()
  @ValidateNested()
  @Type(() => CampaignQuietHoursDto)
  quiet_hours?: CampaignQuietHoursDto | null;

  @ApiPropertyOptional({ type: Number, nullable: true, minimum: MIN_RATE, maximum: MAX_RATE, example: 50 })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(MIN_RATE)
  @Max(MAX_RATE)
  rate?: number | null;

  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    exclusiveMinimum: true,
    minimum: 0,
    maximum: MAX_BUDGET,
    example: 100,
  })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @IsPositive()
  @Max(MAX_BUDGET)
  budget?: number | null;
}
