import { IsInt, Max, Min } from 'class-validator';
import { DatabaseConfig } from '@app/config';

export class WebhooksConfig extends DatabaseConfig {
  @IsInt()
  @Min(1)
  @Max(65535)
  WEBHOOKS_PORT: number = 3300;
}
