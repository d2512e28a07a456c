import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMinSize,
  ArrayUnique,
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  IsUrl,
  IsUUID,
  Matches,
  MaxLength,
  MinLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import {
  CONTENT_LIMITS,
  GATEWAY_SEND_CHANNELS,
  GatewaySendChannel,
  IsRegisteredChannel,
  MESSAGE_STATUSES,
  MessageStatus,
  SEND_CONTENT_TYPES,
  SendContentType,
  sendsFromGateway,
} from '@app/contracts';
import { CursorPageQueryDto } from '../../paging/cursor-page.dto';

/** An ISO 8601 date, or a date-time with a zone. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2}))?$/;

/** Most values a template takes: header, body and URL buttons together. */
export const MAX_TEMPLATE_PARAMS = 100;
/** Longest value of one template variable. */
export const MAX_TEMPLATE_PARAM_LENGTH = 1024;

/** A template's name, as Meta names them. */
export const IsTemplateName = (): PropertyDecorator =>
  applyDecorators(
    IsString(),
    Matches(/^[a-z0-9_]{1,512}$/, { message: 'template must be a template name (lowercase letters, digits, _)' }),
  );

/** One value per variable of the template, each text of at most MAX_TEMPLATE_PARAM_LENGTH characters. */
export const IsTemplateParams = (): PropertyDecorator =>
  applyDecorators(
    IsArray(),
    ArrayMaxSize(MAX_TEMPLATE_PARAMS),
    IsString({ each: true }),
    MaxLength(MAX_TEMPLATE_PARAM_LENGTH, { each: true }),
  );

/** A template's language code. */
export const IsTemplateLanguage = (): PropertyDecorator =>
  applyDecorators(
    IsString(),
    Matches(/^[a-z]{2,3}(_[A-Z]{2})?$/, { message: 'language must be a language code such as en or pt_BR' }),
  );

/** A media template's https URL (its host is checked by the egress policy when sent). */
export const IsMediaUrl = (): PropertyDecorator =>
  applyDecorators(
    IsString(),
    MaxLength(2048),
    IsUrl({ protocols: ['https'], require_protocol: true }, { message: 'media_url must be an https URL' }),
  );

/** The longest text or caption any channel takes; each channel's own limit is checked per send. */
const LONGEST_TEXT = Math.max(...Object.values(CONTENT_LIMITS).map((l) => Math.max(l.text, l.caption)));

/**
 * A free-form message (`content`): text, or media by an https URL with a caption. Each kind's
 * fields are checked here; the channel's limits (docs/gateway.md#content) when it is sent.
 */
export class SendContentDto {
  @ApiProperty({ enum: SEND_CONTENT_TYPES, example: 'text' })
  @IsIn(SEND_CONTENT_TYPES)
  type: SendContentType;

  @ApiPropertyOptional({
    example: 'Your order is ready.',
    description: 'type text: the message (1 to 4,096 characters)',
  })
  @ValidateIf((c: SendContentDto) => c.type === 'text')
  @IsString()
  @MinLength(1)
  @MaxLength(LONGEST_TEXT)
  text?: string;

  @ApiPropertyOptional({ description: 'type text: let WhatsApp show a preview of the first URL in the text' })
  @IsOptional()
  @IsBoolean()
  preview_url?: boolean;

  @ApiPropertyOptional({
    example: 'https://shop.example/receipt.pdf',
    description: 'Media types: the https URL of the file',
  })
  @ValidateIf((c: SendContentDto) => c.type !== 'text')
  @IsString()
  @MaxLength(2048)
  @IsUrl({ protocols: ['https'], require_protocol: true }, { message: 'content.url must be an https URL' })
  url?: string;

  @ApiPropertyOptional({
    example: 'Your receipt',
    description: "Media types: the caption (each channel's limit applies)",
  })
  @IsOptional()
  @IsString()
  @MaxLength(LONGEST_TEXT)
  caption?: string;

  @ApiPropertyOptional({ example: 'receipt.pdf', description: 'type document: the file name shown' })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(240)
  file_name?: string;
}

/**
 * `POST /v1/messages`: an APPROVED template of the linked WhatsApp app (`template`), or a
 * free-form message (`content`), to one recipient of a channel or a contact over a route.
 */
export class SendGatewayMessageDto {
  @ApiPropertyOptional({
    enum: GATEWAY_SEND_CHANNELS,
    example: 'telegram',
    description: 'With `to`; or `contact` and `channels`',
  })
  @IsOptional()
  @IsRegisteredChannel(sendsFromGateway)
  channel?: GatewaySendChannel;

  @ApiPropertyOptional({
    example: '79990001122',
    description:
      "whatsapp: the phone number, international (+7 999 000-05-00 or the digits 79990001122) or national in the account's default region ((555) 123-4567); telegram: the chat id (or @channel); max: the user or chat id",
  })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(64)
  to?: string;

  @ApiPropertyOptional({
    example: 'ext:crm-1042',
    description:
      'Instead of `to`: a contact (its id or ext:<external id>), sent over `channels` in order (docs/failover.md)',
  })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(140)
  contact?: string;

  @ApiPropertyOptional({
    enum: GATEWAY_SEND_CHANNELS,
    isArray: true,
    example: ['whatsapp', 'telegram'],
    description: 'With `contact`: 1 to 3 channels, tried in order',
  })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(3)
  @ArrayUnique()
  @IsRegisteredChannel(sendsFromGateway, { each: true })
  channels?: GatewaySendChannel[];

  @ApiPropertyOptional({
    example: 'order_ready',
    description: 'Name of an APPROVED template of the linked WhatsApp app; or `content` (exactly one)',
  })
  @IsOptional()
  @IsTemplateName()
  template?: string;

  @ApiPropertyOptional({
    type: SendContentDto,
    description: 'A free-form message (text, or media by URL); or `template` (exactly one)',
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => SendContentDto)
  content?: SendContentDto;

  @ApiPropertyOptional({
    type: [String],
    example: ['A-1001'],
    description: 'One value per variable of the template: the header, then the body, then URL buttons, in order',
  })
  @IsOptional()
  @IsTemplateParams()
  params?: string[];

  @ApiPropertyOptional({ example: 'en', description: 'Needed only when the template exists in several languages' })
  @IsOptional()
  @IsTemplateLanguage()
  language?: string;

  @ApiPropertyOptional({ description: 'HTTPS URL of the media of an IMAGE, VIDEO or DOCUMENT template' })
  @IsOptional()
  @IsMediaUrl()
  media_url?: string;
}

export class SendGatewayMessageResponseDto {
  @ApiProperty({ example: '019a8d6e-3b7c-7f11-9e2a-5b6c7d8e9f00' })
  id: string;

  @ApiProperty({ example: 'QUEUED' })
  status: 'QUEUED';

  @ApiPropertyOptional({
    enum: SEND_CONTENT_TYPES,
    example: 'image',
    description: 'A `content` send: what the channel was asked to send (docs/gateway.md#content)',
  })
  rendered_as?: SendContentType;
}

/** `GET /v1/messages`: the account's messages, newest first, a page at a time. */
export class ListGatewayMessagesDto extends CursorPageQueryDto {
  @ApiPropertyOptional({ enum: GATEWAY_SEND_CHANNELS })
  @IsOptional()
  @IsRegisteredChannel(sendsFromGateway)
  channel?: GatewaySendChannel;

  @ApiPropertyOptional({ enum: MESSAGE_STATUSES })
  @IsOptional()
  @IsIn(MESSAGE_STATUSES)
  status?: MessageStatus;

  @ApiPropertyOptional({ example: '2026-11-01', description: 'Accepted at or after (ISO 8601 date or date-time)' })
  @IsOptional()
  @IsString()
  @Matches(ISO_TIME, { message: 'from must be an ISO 8601 date (YYYY-MM-DD) or date-time' })
  from?: string;

  @ApiPropertyOptional({ example: '2026-12-01', description: 'Accepted before (ISO 8601 date or date-time)' })
  @IsOptional()
  @IsString()
  @Matches(ISO_TIME, { message: 'to must be an ISO 8601 date (YYYY-MM-DD) or date-time' })
  to?: string;

  @ApiPropertyOptional({
    format: 'uuid',
    description: "Only the messages of this campaign; another account's or an unknown campaign gives an empty page",
  })
  @IsOptional()
  @IsUUID('all', { message: 'campaign_id must be a campaign id (a UUID)' })
  campaign_id?: string;

  @ApiPropertyOptional({
    format: 'uuid',
    description:
      "Only the messages sent to this contact (its id); another account's or an unknown contact gives an empty page",
  })
  @IsOptional()
  @IsUUID('all', { message: 'contact_id must be a contact id (a UUID)' })
  contact_id?: string;
}
