import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDefined, IsIn, IsOptional, Matches, ValidateNested } from 'class-validator';
import {
  BOT_TEMPLATE_CATEGORIES,
  BotTemplateCategory,
  GATEWAY_SEND_CHANNELS,
  GatewaySendChannel,
  GatewayTemplateView,
  ListGatewayTemplatesResult,
  SendContent,
  TemplateQuality,
} from '@app/contracts';
import { IsTemplateLanguage, SendContentDto } from '../../messages/dto/send-gateway-message.dto';
import { ApiNextCursor } from '../../paging/cursor-page.dto';
import { ApiUnixSeconds } from '../../openapi/unix-seconds.decorator';

const TEMPLATE_QUALITIES: TemplateQuality[] = ['GREEN', 'YELLOW', 'RED', 'UNKNOWN'];
const TEMPLATE_NAME = /^[a-z0-9_]{1,512}$/;
const NAME_MESSAGE = 'name must be 1 to 512 lowercase letters, digits and _';

/** `POST /v1/templates`: a bot template for Telegram and MAX (a repeat of name and language is its next version). */
export class CreateBotTemplateDto {
  @ApiProperty({
    example: 'welcome',
    description: 'Lowercase letters, digits and _; shared with a WhatsApp template of the name',
  })
  @Matches(TEMPLATE_NAME, { message: NAME_MESSAGE })
  name: string;

  @ApiProperty({ example: 'en' })
  @IsTemplateLanguage()
  language: string;

  @ApiPropertyOptional({
    enum: BOT_TEMPLATE_CATEGORIES,
    default: 'UTILITY',
    description: 'Decides the lane and the price',
  })
  @IsOptional()
  @IsIn(BOT_TEMPLATE_CATEGORIES)
  category?: BotTemplateCategory;

  @ApiProperty({
    type: SendContentDto,
    description:
      'What is sent: any `content` kind of POST /v1/messages, with {{1}}…{{n}} in its texts filled by `params`',
  })
  @IsDefined()
  @ValidateNested()
  @Type(() => SendContentDto)
  content: SendContentDto;
}

/** `?cursor=&limit=` of `GET /v1/templates` (its cursor is opaque, not a uuid). */
export class ListGatewayTemplatesDto {
  @ApiPropertyOptional({ description: 'The next_cursor of the previous page' })
  @IsOptional()
  @Matches(/^[A-Za-z0-9_-]{1,2000}$/, { message: 'cursor must be the next_cursor of a previous page' })
  cursor?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 50 })
  @IsOptional()
  @Matches(/^(100|[1-9][0-9]?)$/, { message: 'limit must be a whole number from 1 to 100' })
  limit?: string;
}

/** `GET /v1/templates/{name}`: one language, and a bot template's older version. */
export class GetGatewayTemplateDto {
  @ApiPropertyOptional({ example: 'en' })
  @IsOptional()
  @IsTemplateLanguage()
  language?: string;

  @ApiPropertyOptional({ minimum: 1, description: 'A bot template version (with language)' })
  @IsOptional()
  @Matches(/^[1-9][0-9]{0,8}$/, { message: 'version must be a whole number from 1' })
  version?: string;
}

/** `DELETE /v1/templates/{name}`: only this language's versions. */
export class DeleteGatewayTemplateDto {
  @ApiPropertyOptional({ example: 'en' })
  @IsOptional()
  @IsTemplateLanguage()
  language?: string;
}

/** `name` of the path. */
export const isTemplateName = (name: string) => TEMPLATE_NAME.test(name);

/** A template of the account: a bot template (`source: bot`) or the linked WhatsApp app's (`source: whatsapp`). */
export class GatewayTemplateDto implements GatewayTemplateView {
  @ApiProperty({ example: 'welcome' })
  name: string;

  @ApiProperty({ example: 'en' })
  language: string;

  @ApiProperty({
    example: 'UTILITY',
    description: 'Bot templates: MARKETING or UTILITY; Meta templates: their category',
  })
  category: string;

  @ApiProperty({ enum: ['bot', 'whatsapp'] })
  source: 'bot' | 'whatsapp';

  @ApiProperty({
    enum: GATEWAY_SEND_CHANNELS,
    isArray: true,
    description: 'The channels a send of this name and language uses it on',
  })
  channels: GatewaySendChannel[];

  @ApiProperty({ type: Number, nullable: true, description: 'Bot templates: 1, then one more per repeat' })
  version: number | null;

  @ApiProperty({ type: String, nullable: true, description: 'Meta templates: APPROVED, PENDING, REJECTED, PAUSED…' })
  status: string | null;

  @ApiProperty({
    enum: TEMPLATE_QUALITIES,
    nullable: true,
    example: 'GREEN',
    description:
      "Meta templates: Meta's quality rating (GREEN, YELLOW, RED; UNKNOWN while not yet rated), as the last template sync read it; bot templates: null",
  })
  quality: TemplateQuality | null;

  @ApiProperty({
    type: SendContentDto,
    nullable: true,
    description: 'Bot templates: the content with its placeholders',
  })
  content: SendContent | null;

  @ApiProperty({ description: 'How many params a send of it takes' })
  params: number;

  @ApiUnixSeconds({ description: 'when this version was created' })
  created_at: number;
}

export class GatewayTemplatePageDto implements ListGatewayTemplatesResult {
  @ApiProperty({ type: [GatewayTemplateDto] })
  data: GatewayTemplateDto[];

  @ApiNextCursor()
  next_cursor: string | null;
}

/** Every template of one name. */
export class GatewayTemplateListDto {
  @ApiProperty({ type: [GatewayTemplateDto] })
  data: GatewayTemplateDto[];
}
