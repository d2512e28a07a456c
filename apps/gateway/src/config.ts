import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IsIn, IsInt, IsOptional, IsString, IsUrl, Matches, Max, Min, MinLength } from 'class-validator';
import {
  PublicApiConfig,
  DEV_CREDENTIALS_KEYS,
  hasDevelopmentKey,
  IsCredentialsKeys,
  SANDBOX_SECRETS,
  Secret,
} from '@app/config';

/**
 * The gateway's variables. Each registered channel's settings (its API URL, token and timeout,
 * docs/channels.md) are declared by its registration and read with `channelSettings`.
 */
export class GatewayConfig extends PublicApiConfig {
  static readonly channelService = 'gateway';

  /** Where an uploaded contact import is kept while it is read (a local disk; deleted when done). */
  @IsString()
  @MinLength(1)
  CONTACT_IMPORTS_DIR: string = join(tmpdir(), 'contact-imports');

  /** Largest contact import file in bytes (a larger upload: 413). */
  @IsInt()
  @Min(1024)
  CONTACT_IMPORT_MAX_BYTES: number = 1024 * 1024 * 1024;

  /** Most rows of one contact import. */
  @IsInt()
  @Min(1)
  @Max(10_000_000)
  CONTACT_IMPORT_MAX_ROWS: number = 1_000_000;

  /** Contact imports one gateway process reads at once; the rest wait their turn (docs/operations.md#heavy-work). */
  @IsInt()
  @Min(1)
  @Max(64)
  CONTACT_IMPORTS_AT_ONCE: number = 2;

  /** Contact imports stored and waiting for their turn in one process; past it an upload is 503. */
  @IsInt()
  @Min(0)
  @Max(1000)
  CONTACT_IMPORTS_WAITING: number = 8;

  /** An account's contact imports being stored, waiting or read at once (every replica); past it 503. */
  @IsInt()
  @Min(1)
  @Max(100)
  CONTACT_IMPORTS_PER_ACCOUNT: number = 2;

  /**
   * How often a process says it holds its imports, fails those of processes gone for 2 minutes and
   * removes their stored files.
   */
  @IsInt()
  @Min(100)
  @Max(600_000)
  CONTACT_IMPORTS_SWEEP_MS: number = 30_000;

  /** CSV exports of contacts one process streams at once; the rest wait up to 10 s, then 503. */
  @IsInt()
  @Min(1)
  @Max(64)
  CONTACT_EXPORTS_AT_ONCE: number = 2;

  /** An account's CSV exports streaming or waiting at once in one process; past it 503. */
  @IsInt()
  @Min(1)
  @Max(64)
  CONTACT_EXPORTS_PER_ACCOUNT: number = 1;

  @IsInt()
  @Min(1)
  @Max(65535)
  GATEWAY_PORT: number = 3100;

  /** Where channels and the course platform reach the gateway (webhook and pixel URLs it hands out). */
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  GATEWAY_PUBLIC_URL: string = 'http://localhost:3100';

  /** The console's built app (`pnpm console:build`), served at /console (docs/console.md). */
  @IsString()
  @MinLength(1)
  CONSOLE_DIST_DIR: string = join(process.cwd(), 'apps/console/dist');

  /** `true` marks the console's session cookie Secure (HTTPS only); unset: true in production, false elsewhere. */
  @IsOptional()
  @IsIn(['true', 'false'])
  CONSOLE_COOKIE_SECURE?: string;

  get consoleCookieSecure(): boolean {
    return this.CONSOLE_COOKIE_SECURE === undefined ? this.isProduction : this.CONSOLE_COOKIE_SECURE === 'true';
  }

  /** A console session unused this long (seconds) ends. */
  @IsInt()
  @Min(60)
  @Max(86_400)
  CONSOLE_SESSION_IDLE_S: number = 1800;

  /** A console session ends this long (seconds) after sign-in, however busy. */
  @IsInt()
  @Min(300)
  @Max(30 * 86_400)
  CONSOLE_SESSION_MAX_S: number = 12 * 3600;

  /** Verifies X-Hub-Signature-256 of WhatsApp webhooks (the Meta app secret). */
  @Secret()
  @IsString()
  @MinLength(8)
  WHATSAPP_APP_SECRET: string = SANDBOX_SECRETS.whatsappAppSecret;

  /** Answers Meta's webhook verification challenge (`hub.verify_token`). */
  @Secret()
  @IsString()
  @MinLength(8)
  WHATSAPP_VERIFY_TOKEN: string = SANDBOX_SECRETS.whatsappVerifyToken;

  /** The platform's Meta app id: the client of embedded-signup code exchanges. */
  @IsString()
  @MinLength(1)
  WHATSAPP_APP_ID: string = 'sandbox-app-id';

  /** Two-step verification PIN (6 digits) set on numbers registered at onboarding. */
  @Secret()
  @Matches(/^[0-9]{6}$/, { message: 'WHATSAPP_TWO_STEP_PIN must be 6 digits' })
  WHATSAPP_TWO_STEP_PIN: string = SANDBOX_SECRETS.whatsappTwoStepPin;

  /**
   * How long the tenant of a channel connection (asked of the api) is remembered; a connection no
   * app owns is remembered for at most 30 s, so a number connected meanwhile is seen soon.
   */
  @IsInt()
  @Min(0)
  @Max(3_600_000)
  GATEWAY_TENANT_CACHE_MS: number = 300_000;

  /**
   * Keys that seal bot tokens (AES-256-GCM), shared with the queue: `id:base64key[,id:base64key]`,
   * the first sealing, the others still opening values sealed before a rotation.
   */
  @Secret({ development: hasDevelopmentKey })
  @IsCredentialsKeys()
  CREDENTIALS_KEYS: string = DEV_CREDENTIALS_KEYS;

  /**
   * `true` lets addresses a tenant chose (course platforms, media URLs of sends) be plain HTTP and private or loopback
   * addresses: local receivers in development and tests (`pnpm stack`). Anything else keeps the
   * SSRF protection on, whatever NODE_ENV says.
   */
  @IsIn(['true', 'false'])
  ALLOW_PRIVATE_TARGETS: string = 'false';

  get allowPrivateTargets(): boolean {
    return this.ALLOW_PRIVATE_TARGETS === 'true';
  }

  /** Signs the expiring links to inbound media (HMAC-SHA256, docs/conversations.md#media); rotating it ends every link handed out. */
  @Secret()
  @IsString()
  @MinLength(16)
  MEDIA_LINK_SECRET: string = 'sandbox-media-link-secret';

  /** How long a link to an inbound file works after the message was read (seconds). */
  @IsInt()
  @Min(60)
  @Max(7 * 86_400)
  MEDIA_LINK_TTL_S: number = 3600;

  /** How long fetching one inbound file from its channel may take before it is tried again later. */
  @IsInt()
  @Min(1000)
  @Max(600_000)
  MEDIA_FETCH_TIMEOUT_MS: number = 120_000;

  /** Inbound files one gateway process fetches at once. */
  @IsInt()
  @Min(1)
  @Max(64)
  MEDIA_FETCHES_AT_ONCE: number = 4;

  /** Media library uploads (POST /v1/media, streamed or fetched from a URL) one gateway process takes at once. */
  @IsInt()
  @Min(1)
  @Max(64)
  MEDIA_UPLOADS_AT_ONCE: number = 4;

  /** Course status events: the first retry of a post the platform did not answer with 2xx waits this long... */
  @IsInt()
  @Min(10)
  @Max(600_000)
  COURSE_EVENTS_RETRY_FIRST_DELAY_MS: number = 1000;

  /** ...then the wait doubles up to this... */
  @IsInt()
  @Min(10)
  @Max(86_400_000)
  COURSE_EVENTS_RETRY_MAX_DELAY_MS: number = 300_000;

  /** ...for this long after the status event was recorded (3 days), then it is abandoned. */
  @IsInt()
  @Min(1000)
  @Max(7 * 86_400_000)
  COURSE_EVENTS_RETRY_FOR_MS: number = 3 * 86_400_000;

  /** How long one post of a status event may take. */
  @IsInt()
  @Min(100)
  @Max(120_000)
  COURSE_EVENTS_TIMEOUT_MS: number = 10_000;

  /** Live course connections one account may have; one more is a 409 problem. */
  @IsInt()
  @Min(1)
  @Max(1000)
  COURSE_MAX_CONNECTIONS_PER_ACCOUNT: number = 10;

  /** Course rules one account may have (all of them listed by GET /v1/course/rules); one more is a 409 problem. */
  @IsInt()
  @Min(1)
  @Max(10_000)
  COURSE_MAX_RULES_PER_ACCOUNT: number = 200;

  /** Rules one event type of a connection may have: the most sends one inbound event fans out to. */
  @IsInt()
  @Min(1)
  @Max(100)
  COURSE_MAX_RULES_PER_EVENT_TYPE: number = 10;

  /** Most of a course platform's answer to a status post that is read; a bigger answer fails the post. */
  @IsInt()
  @Min(1024)
  @Max(1024 * 1024)
  COURSE_ANSWER_LIMIT_BYTES: number = 64 * 1024;

  /** How often the course workers look for due work when nothing woke them. */
  @IsInt()
  @Min(10)
  @Max(60_000)
  COURSE_POLL_INTERVAL_MS: number = 500;

  /**
   * Unauthenticated endpoints (tracking pixel, course platform events, bot updates), per client
   * address, in each replica: requests per second...
   */
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  PUBLIC_RATE_LIMIT_PER_ADDRESS_PER_SECOND: number = 200;

  /** ...and at once after being idle. */
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  PUBLIC_RATE_LIMIT_PER_ADDRESS_BURST: number = 400;

  /** The same per target (one pixel token, one connection's callbacks): requests per second... */
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  PUBLIC_RATE_LIMIT_PER_TARGET_PER_SECOND: number = 100;

  /** ...and at once after being idle. */
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  PUBLIC_RATE_LIMIT_PER_TARGET_BURST: number = 200;
}
