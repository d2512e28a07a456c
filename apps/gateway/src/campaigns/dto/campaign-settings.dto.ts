import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CampaignSettings, FREQUENCY_LIMITS, FrequencyCap, FrequencyRules } from '@app/contracts';

/** At most `messages` marketing campaign messages per contact in any `period_hours`. */
export class FrequencyCapDto implements FrequencyCap {
  @ApiProperty({ minimum: 1, maximum: FREQUENCY_LIMITS.maxMessages, example: 2 })
  messages: number;

  @ApiProperty({ minimum: 1, maximum: FREQUENCY_LIMITS.maxPeriodHours, example: 24 })
  period_hours: number;
}

/** A campaign's override of the account's frequency rules: a field given replaces it, null turns it off. */
export class FrequencyRulesDto implements FrequencyRules {
  @ApiPropertyOptional({ type: FrequencyCapDto, nullable: true })
  frequency_cap?: FrequencyCapDto | null;

  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    minimum: 1,
    maximum: FREQUENCY_LIMITS.maxTemplateDays,
    example: 7,
    description: 'Skip a contact a campaign sent this template within this many days',
  })
  recent_template_days?: number | null;
}

/** `GET|PUT /v1/campaigns/settings`: the account's frequency rules for every marketing campaign. */
export class CampaignSettingsDto implements CampaignSettings {
  @ApiProperty({ type: FrequencyCapDto, nullable: true, description: 'null: no cap' })
  frequency_cap: FrequencyCapDto | null;

  @ApiProperty({
    type: Number,
    nullable: true,
    minimum: 1,
    maximum: FREQUENCY_LIMITS.maxTemplateDays,
    example: 7,
    description: 'null: off',
  })
  recent_template_days: number | null;
}
