import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Length, MaxLength } from 'class-validator';
import { TEMPLATE_BUTTON_TYPES, TEMPLATE_FLOW_ACTIONS, TemplateButtonType, TemplateFlowAction } from '@app/contracts';

export const BUTTON_TYPES = TEMPLATE_BUTTON_TYPES;

/**
 * A button of a template: QUICK_REPLY {type, text}, URL {type, text, url, example}, PHONE_NUMBER
 * {type, text, phone_number}, COPY_CODE {type, text, example} or FLOW {type, text, flow_id,
 * flow_action, navigate_screen}.
 */
export class TemplateButtonDto {
  @ApiProperty({ enum: BUTTON_TYPES })
  @IsIn(BUTTON_TYPES)
  type: TemplateButtonType;

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
    description:
      'URL buttons with {{1}}: the full example URL (or only the value of {{1}}); COPY_CODE: the sample code (1 to 15 letters and digits)',
    example: 'https://shop.example.com/orders/A1234',
  })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  example?: string | null;

  @ApiPropertyOptional({
    maxLength: 20,
    description: 'PHONE_NUMBER buttons: the number to call, international format',
    example: '+15550100',
  })
  @IsOptional()
  @IsString()
  @MaxLength(20)
  phone_number?: string;

  @ApiPropertyOptional({
    maxLength: 32,
    description: 'FLOW buttons: the id of a published WhatsApp Flow',
    example: '1234567890',
  })
  @IsOptional()
  @IsString()
  @MaxLength(32)
  flow_id?: string;

  @ApiPropertyOptional({
    enum: TEMPLATE_FLOW_ACTIONS,
    default: 'navigate',
    description: 'FLOW buttons: how the Flow opens',
  })
  @IsOptional()
  @IsIn(TEMPLATE_FLOW_ACTIONS)
  flow_action?: TemplateFlowAction;

  @ApiPropertyOptional({
    maxLength: 100,
    description: 'FLOW buttons with navigate: the first screen',
    example: 'WELCOME',
  })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  navigate_screen?: string;
}
