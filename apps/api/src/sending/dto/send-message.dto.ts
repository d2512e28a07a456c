import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsOptional,
  IsString,
  IsUrl,
  Length,
  Matches,
  MaxLength,
  registerDecorator,
  ValidateNested,
  ValidationArguments,
  ValidationOptions,
} from 'class-validator';
import { MESSAGE_KINDS, MessageKind } from '@app/contracts';

/** International format: country code and number, digits only, no plus, 8 to 15 digits, first not 0. */
export const PHONE_PATTERN = /^[1-9][0-9]{7,14}$/;
export const MAX_TEXT_BODY = 4096;
export const MAX_CAPTION = 1024;
export const MAX_TEMPLATE_VALUE = 30;
export const MAX_VALUES_PER_COMPONENT = 10;

const HTTPS_URL = { protocols: ['https'], require_protocol: true, require_valid_protocol: true };
const HTTPS_MESSAGE = { message: '$property must be an HTTPS URL' };

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

/** Exactly one emoji, as a user sees it (one grapheme: skin tones, flags and ZWJ sequences included). */
export function isSingleEmoji(value: unknown): boolean {
  if (typeof value !== 'string' || value.length === 0 || value.length > 64) return false;
  if ([...graphemes.segment(value)].length !== 1) return false;
  return /\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20E3/u.test(value);
}

/** A substitution value: a non-empty string of at most 30 characters, or a finite number. */
export function isTemplateValue(value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value) && String(value).length <= MAX_TEMPLATE_VALUE;
  return typeof value === 'string' && value.length >= 1 && [...value].length <= MAX_TEMPLATE_VALUE;
}

function IsSingleEmoji(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isSingleEmoji',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: '$property must be exactly one emoji', ...options },
      validator: { validate: isSingleEmoji },
    });
}

function IsTemplateValues(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isTemplateValues',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: `each of $property must be a string of 1 to ${MAX_TEMPLATE_VALUE} characters or a number`,
      },
      validator: { validate: (v: unknown) => Array.isArray(v) && v.every(isTemplateValue) },
    });
}

/**
 * The data object of a kind (`text` for TEXT, ...): required when `type` is that kind, refused
 * otherwise, so a body carries exactly one data object and it matches its type.
 */
function KindData(kind: MessageKind, opts: { object: boolean } = { object: true }): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'kindData',
      target: target.constructor,
      propertyName: propertyName as string,
      validator: {
        validate(value: unknown, args: ValidationArguments) {
          const type = (args.object as { type?: unknown }).type;
          if (type !== kind) return value === undefined;
          if (!opts.object) return true;
          return typeof value === 'object' && value !== null && !Array.isArray(value);
        },
        defaultMessage(args: ValidationArguments) {
          const type = (args.object as { type?: unknown }).type;
          if (type !== kind) return `${args.property} is only allowed when type is ${kind}`;
          return `${args.property} must be an object when type is ${kind}`;
        },
      },
    });
}

export class TextContentDto {
  @ApiProperty({ maxLength: MAX_TEXT_BODY })
  @IsString()
  @Length(1, MAX_TEXT_BODY)
  body: string;
}

export class MediaContentDto {
  @ApiProperty({ example: 'https://example.com/picture.jpg' })
  @IsString()
  @MaxLength(2048)
  @IsUrl(HTTPS_URL, HTTPS_MESSAGE)
  url: string;

  @ApiPropertyOptional({ maxLength: MAX_CAPTION })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_CAPTION)
  caption?: string;
}

export class AudioContentDto {
  @ApiProperty({ example: 'https://example.com/voice.ogg' })
  @IsString()
  @MaxLength(2048)
  @IsUrl(HTTPS_URL, HTTPS_MESSAGE)
  url: string;

  @ApiPropertyOptional({ description: 'Marks a voice message' })
  @IsOptional()
  @IsBoolean()
  is_voice?: boolean;
}

export class ReactionContentDto {
  @ApiProperty({ example: '👍' })
  @IsSingleEmoji()
  emoji: string;

  @ApiProperty({ description: 'The message reacted to: one of ours (id) or an inbound one (channel id)' })
  @IsString()
  @Length(1, 255)
  message_id: string;
}

export class TemplateValuesDto {
  @ApiProperty({
    type: 'array',
    items: { oneOf: [{ type: 'string', minLength: 1, maxLength: MAX_TEMPLATE_VALUE }, { type: 'number' }] },
    maxItems: MAX_VALUES_PER_COMPONENT,
    example: ['Anna', 'A1234'],
    description: 'Values of the variables {{1}}, {{2}}, ... in order',
  })
  @IsArray()
  @ArrayMaxSize(MAX_VALUES_PER_COMPONENT)
  @IsTemplateValues()
  values: (string | number)[];
}

export class TemplateButtonValuesDto extends TemplateValuesDto {
  @ApiProperty({
    enum: ['URL', 'QUICK_REPLY', 'COPY_CODE'],
    description: "URL: the URL's variables; COPY_CODE: one value, the coupon code (at most 15 characters)",
  })
  @IsIn(['URL', 'QUICK_REPLY', 'COPY_CODE'])
  type: 'URL' | 'QUICK_REPLY' | 'COPY_CODE';
}

/** The values of a template send, per component (not the template's own components). */
export class TemplateSendComponentsDto {
  @ApiPropertyOptional({ type: TemplateValuesDto, nullable: true })
  @IsOptional()
  @ValidateNested()
  @Type(() => TemplateValuesDto)
  header?: TemplateValuesDto | null;

  @ApiPropertyOptional({ type: TemplateValuesDto, nullable: true })
  @IsOptional()
  @ValidateNested()
  @Type(() => TemplateValuesDto)
  body?: TemplateValuesDto | null;

  @ApiPropertyOptional({
    type: [TemplateButtonValuesDto],
    nullable: true,
    description:
      "Matched in order to the template's buttons that take values: URL buttons with variables, the COPY_CODE button",
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10)
  @ValidateNested({ each: true })
  @Type(() => TemplateButtonValuesDto)
  buttons?: TemplateButtonValuesDto[] | null;
}

export class TemplateSendDto {
  @ApiProperty({ description: 'Name of an APPROVED template of the app' })
  @IsString()
  @Length(1, 512)
  name: string;

  @ApiPropertyOptional({
    description: 'Language of the template; needed only when the name exists in several languages',
    example: 'en',
  })
  @IsOptional()
  @IsString()
  @Matches(/^[a-z]{2,3}(_[A-Z]{2})?$/, { message: 'language must be a language code such as en or pt_BR' })
  language?: string;

  @ApiPropertyOptional({ description: 'HTTPS URL of the media, required for IMAGE, VIDEO and DOCUMENT templates' })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  @IsUrl(HTTPS_URL, HTTPS_MESSAGE)
  url?: string;

  @ApiPropertyOptional({ type: TemplateSendComponentsDto, nullable: true })
  @IsOptional()
  @ValidateNested()
  @Type(() => TemplateSendComponentsDto)
  components?: TemplateSendComponentsDto | null;
}

/** POST /v1/wa/apps/{appId}/messages: `type` selects the kind, whose lowercase name is the data object's key. */
export class SendMessageDto {
  @ApiProperty({ example: '79990001122', description: 'Digits only, no plus: 8 to 15 digits, first not 0' })
  @IsString()
  @Matches(PHONE_PATTERN, {
    message: 'phone must be in international format: 8 to 15 digits, no plus or spaces, not starting with 0',
  })
  phone: string;

  @ApiProperty({ enum: MESSAGE_KINDS })
  @IsIn(MESSAGE_KINDS)
  type: MessageKind;

  @ApiPropertyOptional({ type: TextContentDto })
  @KindData('TEXT')
  @ValidateNested()
  @Type(() => TextContentDto)
  text?: TextContentDto;

  @ApiPropertyOptional({ type: MediaContentDto })
  @KindData('IMAGE')
  @ValidateNested()
  @Type(() => MediaContentDto)
  image?: MediaContentDto;

  @ApiPropertyOptional({ type: MediaContentDto })
  @KindData('VIDEO')
  @ValidateNested()
  @Type(() => MediaContentDto)
  video?: MediaContentDto;

  @ApiPropertyOptional({ type: MediaContentDto })
  @KindData('DOCUMENT')
  @ValidateNested()
  @Type(() => MediaContentDto)
  document?: MediaContentDto;

  @ApiPropertyOptional({ type: AudioContentDto })
  @KindData('AUDIO')
  @ValidateNested()
  @Type(() => AudioContentDto)
  audio?: AudioContentDto;

  @ApiPropertyOptional({ type: ReactionContentDto })
  @KindData('REACTION')
  @ValidateNested()
  @Type(() => ReactionContentDto)
  reaction?: ReactionContentDto;

  @ApiPropertyOptional({ type: TemplateSendDto })
  @KindData('TEMPLATE')
  @ValidateNested()
  @Type(() => TemplateSendDto)
  template?: TemplateSendDto;

  @ApiPropertyOptional({ description: 'TEMPLATE only: send through the lightweight marketing-message mode' })
  @KindData('TEMPLATE', { object: false })
  @IsOptional()
  @IsBoolean()
  is_mm_lite?: boolean;
}

export class SentMessageDto {
  @ApiProperty({ example: '019a8d6e-3b7c-7f11-9e2a-5b6c7d8e9f00' })
  id: string;
}

export class SendMessageResponseDto {
  @ApiProperty({ type: SentMessageDto })
  message: SentMessageDto;
}
