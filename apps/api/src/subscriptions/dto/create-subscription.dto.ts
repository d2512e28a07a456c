import { IsDefined, IsInt, IsOptional, IsString, IsUrl, Max, MaxLength, Min, ValidateIf } from 'class-validator';
import { SUBSCRIPTION_LIMITS } from '@app/contracts';
import { IsEventFilter } from './is-event-filter';

export class CreateSubscriptionDto {
  /** Where events are POSTed. HTTPS and a public address in production. */
  @IsString()
  @MaxLength(SUBSCRIPTION_LIMITS.urlMaxLength)
  @IsUrl(
    { require_protocol: true, protocols: ['http', 'https'], require_tld: false, require_host: true },
    { message: 'url must be an absolute http or https URL' },
  )
  url: string;

  /** Event types to receive, or `*` for all. */
  @IsDefined()
  @IsEventFilter()
  events: string[] | string;

  /** Only events of this app (all apps when absent or null). */
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
}
