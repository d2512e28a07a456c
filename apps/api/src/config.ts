import { IsInt, IsOptional, IsString, IsUrl, Length, Max, Min } from 'class-validator';
import { DatabaseConfig } from '@app/config';

export class ApiConfig extends DatabaseConfig {
  @IsInt()
  @Min(1)
  @Max(65535)
  API_PORT: number = 3000;

  /** Where clients reach the api (links it hands out, such as embed_link_url). */
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  API_PUBLIC_URL: string = 'http://localhost:3000';

  /** Currency of new users' balances (ISO 4217). */
  @IsString()
  @Length(3, 3)
  DEFAULT_CURRENCY: string = 'USD';

  @IsOptional()
  @IsString()
  API_INSTANCE_ID?: string;
}
