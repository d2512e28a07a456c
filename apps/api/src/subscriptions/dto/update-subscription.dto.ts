import { IsBoolean, IsInt, IsOptional, IsString, IsUrl, Max, MaxLength, Min, ValidateIf } from 'class-validator';
import { SUBSCRIPTION_LIMITS } from '@app/contracts';
import { IsEventFilter } from './is-event-filter';

export class UpdateSubscriptionDto {
  @IsOptional()
  @IsString()
  @MaxLength(SUBSCRIPTION_LIMITS.urlMaxLength)
  @IsUrl(
    { require_protocol: true, protocols: ['http', 'https'], require_tld: false, require_host: true },
    { message: 'url must be an absolute http or https URL' },
  )
  url?: string;

  @IsOptional()
  @IsEventFilter()
  events?: string[] | string;

  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  app_id?: number | null;

  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsString()
  @MaxLength(SUBSCRIPTION_LIMITS.descriptionMaxLength)
  description?: string | null;

  /** true re-enables a disabled subscription; false disables it. */
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;
}
