import { IsInt, IsUrl, Max, Min } from 'class-validator';
import { DatabaseConfig } from '@app/config';

export class GatewayConfig extends DatabaseConfig {
  @IsInt()
  @Min(1)
  @Max(65535)
  GATEWAY_PORT: number = 3100;

  /** Where channels and the course platform reach the gateway (webhook and pixel URLs it hands out). */
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  GATEWAY_PUBLIC_URL: string = 'http://localhost:3100';
}
