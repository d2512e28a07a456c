import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsNotEmpty,
  IsOptional,
  IsString,
  Length,
  Matches,
  MaxLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import type { TemplateType } from '@app/contracts';
import { TEMPLATE_LANGUAGES } from '../template-languages';
import { TemplateButtonDto } from './template-button.dto';

export const CREATE_CATEGORIES = ['MARKETING', 'UTILITY', 'SERVICE'] as const;
export const TEMPLATE_TYPES = ['TEXT', 'IMAGE', 'VIDEO', 'DOCUMENT'] as const;
export type CreateCategory = (typeof CREATE_CATEGORIES)[number];

/** Examples may be longer than their text: values replace the variables. */
export const MAX_EXAMPLE_LENGTH = 1024;

export class CreateTemplateDto {
  @ApiProperty({
    minLength: 1,
    maxLength: 512,
    pattern: '^[a-z0-9_]+$',
    example: 'order_shipped',
    description: 'Lowercase letters, digits and underscores; unique per app and language',
  })
  @IsString()
  @Length(1, 512)
  @Matches(/^[a-z0-9_]+$/, { message: 'name may contain only lowercase letters, digits and underscores' })
  name: string;

  @ApiProperty({ enum: TEMPLATE_LANGUAGES, example: 'en_US' })
  @IsString()
  @IsIn(TEMPLATE_LANGUAGES, { message: 'language must be one of the allowed language codes (see docs/api.md)' })
  language: string;

  @ApiProperty({ enum: CREATE_CATEGORIES })
  @IsIn(CREATE_CATEGORIES)
  category: CreateCategory;

  @ApiPropertyOptional({ enum: TEMPLATE_TYPES, default: 'TEXT' })
  @ValidateIf((o: CreateTemplateDto) => o.type !== undefined)
  @IsIn(TEMPLATE_TYPES)
  type?: TemplateType;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: 60,
    description: 'TEXT templates only; may hold variables {{n}}',
    example: 'Order {{1}}',
  })
  @IsOptional()
  @IsString()
  @MaxLength(60)
  header?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: MAX_EXAMPLE_LENGTH,
    description: 'Required when header is set: the header with each variable replaced by a sample value',
    example: 'Order A1234',
  })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_EXAMPLE_LENGTH)
  header_example?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    format: 'uri',
    maxLength: 2000,
    description:
      'Required for IMAGE (.jpg, .jpeg, .png), VIDEO (.3gp, .mp4) and DOCUMENT (.pdf): HTTPS URL of a publicly downloadable file',
  })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  example_media_url?: string | null;

  @ApiProperty({ minLength: 1, maxLength: 550, example: 'Hi {{1}}, your order {{2}} has shipped.' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(550)
  @Matches(/\S/, { message: 'body must not be blank' })
  body: string;

  @ApiProperty({
    maxLength: MAX_EXAMPLE_LENGTH,
    description: 'The body with each variable replaced by a sample value',
    example: 'Hi Anna, your order A1234 has shipped.',
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_EXAMPLE_LENGTH)
  body_example: string;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 60, example: 'Reply STOP to unsubscribe' })
  @IsOptional()
  @IsString()
  @MaxLength(60)
  footer?: string | null;

  @ApiPropertyOptional({ type: [TemplateButtonDto], minItems: 1, maxItems: 10 })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(10)
  @ValidateNested({ each: true })
  @Type(() => TemplateButtonDto)
  buttons?: TemplateButtonDto[] | null;
}
