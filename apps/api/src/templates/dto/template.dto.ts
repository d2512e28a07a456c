import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { TEMPLATE_BUTTON_TYPES, TEMPLATE_FLOW_ACTIONS } from '@app/contracts';
import type {
  TemplateButtonType,
  TemplateCategory,
  TemplateFlowAction,
  TemplateQuality,
  TemplateStatus,
  TemplateType,
} from '@app/contracts';

export class TemplateTextComponentDto {
  @ApiProperty({ description: 'The text with its {{n}} variables', example: 'Hi {{1}}' })
  text: string;

  @ApiProperty({ description: 'The example text', example: 'Hi Anna' })
  sample_text: string;

  @ApiProperty({ type: [String], description: 'Example value of each variable, {{1}} first', example: ['Anna'] })
  placeholders: string[];
}

export class TemplateButtonViewDto {
  @ApiProperty({ enum: TEMPLATE_BUTTON_TYPES })
  type: TemplateButtonType;

  @ApiProperty()
  text: string;

  @ApiPropertyOptional({ description: 'URL buttons' })
  url?: string;

  @ApiPropertyOptional({ type: [String], description: 'URL buttons: the example value of {{1}}' })
  placeholders?: string[];

  @ApiPropertyOptional({ description: 'PHONE_NUMBER buttons: the number called' })
  phone_number?: string;

  @ApiPropertyOptional({ description: 'COPY_CODE buttons: the sample code' })
  example?: string;

  @ApiPropertyOptional({ description: 'FLOW buttons: the Flow' })
  flow_id?: string;

  @ApiPropertyOptional({ enum: TEMPLATE_FLOW_ACTIONS, description: 'FLOW buttons: how the Flow opens' })
  flow_action?: TemplateFlowAction;

  @ApiPropertyOptional({ description: 'FLOW buttons: the first screen' })
  navigate_screen?: string;
}

export class TemplateComponentsDto {
  @ApiPropertyOptional({ type: TemplateTextComponentDto, description: 'Absent when the template has no text header' })
  header?: TemplateTextComponentDto;

  @ApiProperty({ type: TemplateTextComponentDto })
  body: TemplateTextComponentDto;

  @ApiProperty({ type: TemplateTextComponentDto, nullable: true, description: 'null when unset' })
  footer: TemplateTextComponentDto | null;

  @ApiProperty({ type: [TemplateButtonViewDto] })
  buttons: TemplateButtonViewDto[];
}

export class FailureDetailsDto {
  @ApiProperty({ example: 'INVALID_FORMAT' })
  code: string;

  @ApiProperty()
  message: string;
}

export const TEMPLATE_STATUSES = ['PENDING', 'APPROVED', 'REJECTED', 'FAILED', 'PAUSED'] as const;
export const TEMPLATE_QUALITIES = ['UNKNOWN', 'GREEN', 'YELLOW', 'RED'] as const;

/** The API's Template object (docs/api.md, Templates). */
export class TemplateDto {
  @ApiProperty({ description: 'The tplId path parameter', example: 7 })
  id: number;

  @ApiProperty({ description: 'Channel-side template identifier' })
  wa_id: string;

  @ApiProperty()
  name: string;

  @ApiProperty({ enum: ['MARKETING', 'MARKETING_LITE', 'UTILITY', 'SERVICE'] })
  category: TemplateCategory;

  @ApiProperty({ enum: ['TEXT', 'IMAGE', 'VIDEO', 'DOCUMENT'] })
  type: TemplateType;

  @ApiProperty({ example: 'en_US' })
  language: string;

  @ApiProperty({ enum: TEMPLATE_STATUSES })
  status: TemplateStatus;

  @ApiProperty({ enum: TEMPLATE_QUALITIES })
  quality: TemplateQuality;

  @ApiProperty({ type: String, nullable: true, description: 'IMAGE, VIDEO, DOCUMENT: the media URL; null for TEXT' })
  media_url: string | null;

  @ApiProperty({ type: TemplateComponentsDto })
  components: TemplateComponentsDto;

  @ApiProperty({
    type: FailureDetailsDto,
    nullable: true,
    description: 'Set when the status is REJECTED or FAILED; otherwise null',
  })
  failure_details: FailureDetailsDto | null;

  @ApiProperty({ description: 'Unix seconds' })
  created_at: number;

  @ApiProperty({ description: 'Unix seconds' })
  updated_at: number;
}
