import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Length, MaxLength } from 'class-validator';

export const BUTTON_TYPES = ['QUICK_REPLY', 'URL'] as const;

/** A button of a template: QUICK_REPLY {type, text} or URL {type, text, url, example}. */
export class TemplateButtonDto {
  @ApiProperty({ enum: BUTTON_TYPES })
  @IsIn(BUTTON_TYPES)
  type: 'QUICK_REPLY' | 'URL';

  @ApiProperty({ minLength: 1, maxLength: 25, example: 'Track order' })
  @IsString()
  @Length(1, 25)
  text: string;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: 2000,
    description: 'URL buttons: an https:// URL that may end with one variable {{1}}',
    example: 'https://shop.example.com/orders/{{1}}',
  })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  url?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: 2000,
    description: 'URL buttons with {{1}}: the full example URL (or only the value of {{1}})',
    example: 'https://shop.example.com/orders/A1234',
  })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  example?: string | null;
}
