import { IsInt, IsString, IsUrl, Matches, Max, Min, MinLength } from 'class-validator';
import { DatabaseConfig } from '@app/config';

export class GatewayConfig extends DatabaseConfig {
  @IsInt()
  @Min(1)
  @Max(65535)
  GATEWAY_PORT: number = 3100;

  /** Where channels and the course platform reach the gateway (webhook and pixel URLs it hands out). */
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  GATEWAY_PUBLIC_URL: string = 'http://localhost:3100';

  /** Verifies X-Hub-Signature-256 of WhatsApp webhooks (the Meta app secret). */
  @IsString()
  @MinLength(8)
  WHATSAPP_APP_SECRET: string = 'sandbox-app-secret';

  /** Answers Meta's webhook verification challenge (`hub.verify_token`). */
  @IsString()
  @MinLength(8)
  WHATSAPP_VERIFY_TOKEN: string = 'sandbox-verify-token';

  /** Graph API base URL: https://graph.facebook.com in production; the sandbox by default. */
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  WHATSAPP_GRAPH_URL: string = 'http://localhost:3900';

  @Matches(/^v\d+\.\d+$/, { message: 'WHATSAPP_API_VERSION must look like v21.0' })
  WHATSAPP_API_VERSION: string = 'v21.0';

  /** The business solution provider's system-user token, valid for every WABA. */
  @IsString()
  @MinLength(8)
  WHATSAPP_ACCESS_TOKEN: string = 'sandbox-access-token';

  /** Template calls to the Graph API; below the callers' 5 s request/reply timeout. */
  @IsInt()
  @Min(100)
  @Max(60000)
  WHATSAPP_TIMEOUT_MS: number = 4000;

  /**
   * How long the tenant of a channel connection (asked of the api) is remembered; a connection no
   * app owns is remembered for at most 30 s, so a number connected meanwhile is seen soon.
   */
  @IsInt()
  @Min(0)
  @Max(3_600_000)
  GATEWAY_TENANT_CACHE_MS: number = 300_000;
}
