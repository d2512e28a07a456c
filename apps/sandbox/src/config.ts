import { IsIn, IsInt, IsString, IsUrl, Max, Min, MinLength } from 'class-validator';
import { NodeEnv, SANDBOX_SECRETS } from '@app/config';

/** The sandbox emulates external parties; it needs neither Postgres nor NATS. */
export class SandboxConfig {
  /** Never `production`: the emulator accepts its own published secrets, so it must not run there. */
  @IsIn(['development', 'test'], {
    message: 'NODE_ENV must be development or test: the sandbox never runs in production',
  })
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
  WHATSAPP_APP_SECRET: string = SANDBOX_SECRETS.whatsappAppSecret;

  /** The Meta app the emulated embedded signup issues codes to (client_id of the code exchange). */
  @IsString()
  @MinLength(1)
  WHATSAPP_APP_ID: string = 'sandbox-app-id';

  /** The one access token the emulated Graph API accepts; anything else gets a Graph 401 (code 190). */
  @IsString()
  @MinLength(8)
  WHATSAPP_ACCESS_TOKEN: string = SANDBOX_SECRETS.whatsappAccessToken;

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

  /**
   * Status callbacks carry `pricing` (what the channel bills, as Meta's per-message pricing says
   * it) with `on`; `off` leaves it out, as older API versions do.
   */
  @IsIn(['on', 'off'])
  SANDBOX_STATUS_PRICING: 'on' | 'off' = 'on';

  /**
   * Webhook retries, Meta's schedule compressed: Meta retries a callback the gateway does not answer
   * with 2xx, less and less often, for up to 7 days. The sandbox waits this long before the first
   * retry, doubles the wait up to SANDBOX_WEBHOOK_RETRY_MAX_DELAY_MS, and gives up after
   * SANDBOX_WEBHOOK_RETRY_FOR_MS (minutes by default, so a gateway restart or outage loses nothing).
   */
  @IsInt()
  @Min(10)
  @Max(600000)
  SANDBOX_WEBHOOK_RETRY_FIRST_DELAY_MS: number = 1000;

  @IsInt()
  @Min(10)
  @Max(3600000)
  SANDBOX_WEBHOOK_RETRY_MAX_DELAY_MS: number = 60000;

  @IsInt()
  @Min(0)
  @Max(7 * 24 * 3600000)
  SANDBOX_WEBHOOK_RETRY_FOR_MS: number = 15 * 60000;

  /**
   * How many records of each kind are kept (WhatsApp sends, WhatsApp webhooks, each bot API's
   * calls, each course platform's events): the most recent; older ones are dropped, their counts
   * kept whole (`GET /_sandbox/whatsapp/records`, arrivals). Bounds the sandbox's memory over hours.
   */
  @IsInt()
  @Min(10)
  @Max(1_000_000)
  SANDBOX_RECORDS_MAX: number = 10_000;
}
