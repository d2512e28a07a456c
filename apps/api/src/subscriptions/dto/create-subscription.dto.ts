import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsInt, IsOptional, IsString, IsUrl, Max, MaxLength, Min, ValidateIf } from 'class-validator';
import { EVENT_TYPES, SUBSCRIPTION_LIMITS } from '@app/contracts';
import { IsEventFilter } from './is-event-filter';

export class CreateSubscriptionDto {
  /** Where events are POSTed. HTTPS and a public address in production. */
  @ApiProperty({
    format: 'uri',
    maxLength: SUBSCRIPTION_LIMITS.urlMaxLength,
    example: 'https://hooks.acme.test/messaging',
    description: 'Where events are POSTed: an absolute http(s) URL; HTTPS and a public address in production',
  })
  @IsString()
  @MaxLength(SUBSCRIPTION_LIMITS.urlMaxLength)
  @IsUrl(
    { require_protocol: true, protocols: ['http', 'https'], require_tld: false, require_host: true },
    { message: 'url must be an absolute http or https URL' },
  )
  url: string;

  /** Event types to receive, or `*` for all. */
  @ApiProperty({
    oneOf: [
      { type: 'string', enum: ['*'] },
      { type: 'array', minItems: 1, items: { type: 'string', enum: [...EVENT_TYPES, '*'] } },
    ],
    example: ['message.delivered', 'message.failed'],
    description: 'Event types to receive, or "*" for all',
  })
  @IsDefined()
  @IsEventFilter()
  events: string[] | string;

  /** Only events of this app (all apps when absent or null). */
  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    minimum: 1,
    example: 12,
    description: 'Only events of this app; all apps when absent or null',
  })
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  app_id?: number | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: SUBSCRIPTION_LIMITS.descriptionMaxLength,
    example: 'Delivery reports for the CRM',
  })
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsString()
  @MaxLength(SUBSCRIPTION_LIMITS.descriptionMaxLength)
  description?: string | null;
}
