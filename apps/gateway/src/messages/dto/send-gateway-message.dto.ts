import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMinSize,
  ArrayUnique,
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  MaxLength,
  MinLength,
} from 'class-validator';
import {
  GATEWAY_SEND_CHANNELS,
  GatewaySendChannel,
  IsRegisteredChannel,
  MESSAGE_STATUSES,
  MessageStatus,
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

/** `POST /v1/messages`: one APPROVED template of the linked WhatsApp app, to one recipient of a channel. */
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

  @ApiProperty({ example: 'order_ready', description: 'Name of an APPROVED template of the linked WhatsApp app' })
  @IsTemplateName()
  template: string;

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
}
