import { IsIn, IsInt, IsString, IsUrl, Max, Min, MinLength } from 'class-validator';
import { NODE_ENVS, NodeEnv } from '@app/config';

/** The sandbox emulates external parties; it needs neither Postgres nor NATS. */
export class SandboxConfig {
  @IsIn(NODE_ENVS)
  NODE_ENV: NodeEnv = 'development';

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL: string = 'info';

  @IsInt()
  @Min(1)
  @Max(65535)
  SANDBOX_PORT: number = 3900;

  /** Where the emulated channels send their callbacks (the gateway's inbound endpoints). */
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  GATEWAY_PUBLIC_URL: string = 'http://localhost:3100';

  /** Signs the WhatsApp webhooks (X-Hub-Signature-256); the gateway verifies with the same secret. */
  @IsString()
  @MinLength(8)
  WHATSAPP_APP_SECRET: string = 'sandbox-app-secret';

  /** The one access token the emulated Graph API accepts; anything else gets a Graph 401 (code 190). */
  @IsString()
  @MinLength(8)
  WHATSAPP_ACCESS_TOKEN: string = 'sandbox-access-token';

  /** How long template moderation takes before the status webhook. */
  @IsInt()
  @Min(0)
  @Max(600000)
  SANDBOX_MODERATION_DELAY_MS: number = 1500;

  /** Delay before each message status webhook (sent, then delivered, then read). */
  @IsInt()
  @Min(0)
  @Max(600000)
  SANDBOX_STATUS_DELAY_MS: number = 200;

  /**
   * Template sends: `known` checks sends of templates the sandbox has stored (status, parameter
   * count) and accepts unknown names; `strict` also refuses unknown names with 132001, as Graph does.
   */
  @IsIn(['known', 'strict'])
  SANDBOX_TEMPLATE_CHECK: 'known' | 'strict' = 'known';
}
