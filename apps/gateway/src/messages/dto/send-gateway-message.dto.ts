import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
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
  Validate,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import {
  CONTENT_LIMITS,
  COUPON_CODE_MAX_LENGTH,
  GATEWAY_SEND_CHANNELS,
  GatewaySendChannel,
  IsRegisteredChannel,
  INTERACTIVE_CONTENT_TYPES,
  MAX_CONTENT_BUTTONS,
  MAX_CONTENT_ROWS,
  MESSAGE_STATUSES,
  MessageStatus,
  RENDERED_AS,
  RenderedAs,
  SEND_CONTENT_TYPES,
  SEND_MEDIA_TYPES,
  SendContentType,
  sendsFromGateway,
} from '@app/contracts';
import { CursorPageQueryDto } from '../../paging/cursor-page.dto';
import {
  ContentButtonConstraint,
  ContentButtonDto,
  ContentCtaButtonDto,
  ContentHeaderDto,
  ContentListSectionDto,
} from './interactive-content.dto';

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

const isMedia = (type: string) => (SEND_MEDIA_TYPES as readonly string[]).includes(type);
const hasText = (type: string) => type === 'text' || (INTERACTIVE_CONTENT_TYPES as readonly string[]).includes(type);

/**
 * A free-form message (`content`): text, media by an https URL with a caption, or an interactive
 * kind (buttons, list, cta_url, location_request, flow). Each kind's fields are checked here; the
 * channel's limits (docs/gateway.md#content-kinds) when it is sent, before anything is held.
 */
@ApiExtraModels(ContentCtaButtonDto)
export class SendContentDto {
  @ApiProperty({ enum: SEND_CONTENT_TYPES, example: 'text' })
  @IsIn(SEND_CONTENT_TYPES)
  type: SendContentType;

  @ApiPropertyOptional({
    example: 'Your order is ready.',
    description: "type text and the interactive types: the message (each channel's limit applies)",
  })
  @ValidateIf((c: SendContentDto) => hasText(c.type))
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
    description: 'Media types: the https URL of the file; or `media_id`',
  })
  @ValidateIf((c: SendContentDto) => isMedia(c.type) && c.media_id === undefined)
  @IsString()
  @MaxLength(2048)
  @IsUrl({ protocols: ['https'], require_protocol: true }, { message: 'content.url must be an https URL' })
  url?: string;

  @ApiPropertyOptional({
    format: 'uuid',
    description: 'Media types: a file of the media library (POST /v1/media), instead of `url` (docs/media.md)',
  })
  @IsOptional()
  @IsUUID('all', { message: 'content.media_id must be a media id (a UUID)' })
  media_id?: string;

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

  @ApiPropertyOptional({
    type: [ContentButtonDto],
    description: `type buttons: 1 to ${MAX_CONTENT_BUTTONS} reply buttons; a press comes back with the button's id`,
  })
  @ValidateIf((c: SendContentDto) => c.type === 'buttons')
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_CONTENT_BUTTONS)
  @ValidateNested({ each: true })
  @Type(() => ContentButtonDto)
  buttons?: ContentButtonDto[];

  @ApiPropertyOptional({ type: ContentHeaderDto, description: 'type buttons: a media header by URL' })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ContentHeaderDto)
  header?: ContentHeaderDto;

  @ApiPropertyOptional({
    oneOf: [{ type: 'string', example: 'Pick a time' }, { $ref: getSchemaPath(ContentCtaButtonDto) }],
    description: 'type list: the label of the button that opens the list; type cta_url: the link button {title, url}',
  })
  @ValidateIf((c: SendContentDto) => c.type === 'list' || c.type === 'cta_url')
  @Validate(ContentButtonConstraint)
  button?: string | ContentCtaButtonDto;

  @ApiPropertyOptional({
    type: [ContentListSectionDto],
    description: `type list: sections of rows, at most ${MAX_CONTENT_ROWS} rows in all; a pick comes back with the row's id`,
  })
  @ValidateIf((c: SendContentDto) => c.type === 'list')
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_CONTENT_ROWS)
  @ValidateNested({ each: true })
  @Type(() => ContentListSectionDto)
  sections?: ContentListSectionDto[];

  @ApiPropertyOptional({ example: '1234567890', description: 'type flow: the published WhatsApp Flow' })
  @ValidateIf((c: SendContentDto) => c.type === 'flow')
  @IsString()
  @Matches(/^[A-Za-z0-9_-]{1,64}$/, { message: 'flow_id must be a Flow id' })
  flow_id?: string;

  @ApiPropertyOptional({ example: 'Book now', description: 'type flow: the label of the button that opens it' })
  @ValidateIf((c: SendContentDto) => c.type === 'flow')
  @IsString()
  @MinLength(1)
  @MaxLength(128)
  cta?: string;

  @ApiPropertyOptional({
    example: 'BOOKING',
    description: 'type flow: the first screen (navigate); else the endpoint is asked',
  })
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9_]{1,64}$/, { message: 'screen must be a Flow screen id' })
  screen?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: "type flow: the first screen's data",
  })
  @IsOptional()
  @IsObject()
  data?: Record<string, unknown>;

  @ApiPropertyOptional({
    example: 'https://shop.example/book',
    description: 'type flow: its web form, which Telegram and MAX link to instead (without it they send the text)',
  })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  @IsUrl({ protocols: ['https'], require_protocol: true }, { message: 'content.fallback_url must be an https URL' })
  fallback_url?: string;
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

  @ApiPropertyOptional({
    minLength: 1,
    maxLength: COUPON_CODE_MAX_LENGTH,
    example: 'AUTUMN25',
    description:
      'A template with a COPY_CODE button: the coupon code the button copies (required by such a template, refused by any other)',
  })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(COUPON_CODE_MAX_LENGTH, { message: `coupon_code must be at most ${COUPON_CODE_MAX_LENGTH} characters` })
  coupon_code?: string;
}

export class SendGatewayMessageResponseDto {
  @ApiProperty({ example: '019a8d6e-3b7c-7f11-9e2a-5b6c7d8e9f00' })
  id: string;

  @ApiProperty({ example: 'QUEUED' })
  status: 'QUEUED';

  @ApiPropertyOptional({
    enum: RENDERED_AS,
    example: 'buttons',
    description:
      'A `content` send: what the (first) channel was asked to send, the type or its declared fallback (docs/gateway.md#content-kinds)',
  })
  rendered_as?: RenderedAs;

  @ApiPropertyOptional({
    example: 'ft_3q2Zr8xYb1mN0aLk',
    description:
      "A `flow` send, or a template send whose FLOW button it fills: the token the platform made for it, which the submitted Flow carries back (the answer's `reply.context_message_id` is then this message's id)",
  })
  flow_token?: string;
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
