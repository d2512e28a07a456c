import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { CREATE_CATEGORIES, CreateCategory, MAX_EXAMPLE_LENGTH } from './create-template.dto';
import { TemplateButtonDto } from './template-button.dto';

/**
 * An edit: category, header, footer and buttons keep their values when omitted; an empty string
 * removes header or footer; an empty array or null removes the buttons. Body is required.
 */
export class UpdateTemplateDto {
  @ApiPropertyOptional({ enum: CREATE_CATEGORIES })
  @ValidateIf((o: UpdateTemplateDto) => o.category !== undefined)
  @IsIn(CREATE_CATEGORIES)
  category?: CreateCategory;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 60, description: 'Empty string removes the header' })
  @IsOptional()
  @IsString()
  @MaxLength(60)
  header?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: MAX_EXAMPLE_LENGTH,
    description: 'Required when header is set',
  })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_EXAMPLE_LENGTH)
  header_example?: string | null;

  @ApiProperty({ minLength: 1, maxLength: 550 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(550)
  @Matches(/\S/, { message: 'body must not be blank' })
  body: string;

  @ApiProperty({ maxLength: MAX_EXAMPLE_LENGTH })
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_EXAMPLE_LENGTH)
  body_example: string;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 60, description: 'Empty string removes the footer' })
  @IsOptional()
  @IsString()
  @MaxLength(60)
  footer?: string | null;

  @ApiPropertyOptional({
    type: [TemplateButtonDto],
    nullable: true,
    maxItems: 10,
    description: 'An empty array or null removes the buttons',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10)
  @ValidateNested({ each: true })
  @Type(() => TemplateButtonDto)
  buttons?: TemplateButtonDto[] | null;
}
