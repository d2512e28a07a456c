import { IsIn, IsInt, IsString, IsUrl, Matches, Max, Min } from 'class-validator';
import {
  BaseConfig,
  DEV_CREDENTIALS_KEYS,
  hasDevelopmentKey,
  IsCredentialsKeys,
  SANDBOX_SECRETS,
  Secret,
} from '@app/config';
import { Channel, CHANNEL_SEND_RATES } from '@app/contracts';

export class QueueConfig extends BaseConfig {
  @IsInt()
  @Min(1)
  @Max(65535)
  QUEUE_PORT: number = 3200;

  /** Channels this replica delivers to (one Deployment per channel in production). */
  @IsString()
  @Matches(/^(whatsapp|telegram|max|course)(,(whatsapp|telegram|max|course))*$/, {
    message: 'CHANNELS must be a comma-separated list of whatsapp, telegram, max, course',
  })
  CHANNELS: string = 'whatsapp,telegram,max,course';

  /** Messages of one channel handled at the same time (each channel has its own). */
  @IsInt()
  @Min(1)
  @Max(1000)
  QUEUE_CONCURRENCY: number = 20;

  /** Exponential backoff of a transient failure: first delay, doubled per delivery up to the max. */
  @IsInt()
  @Min(10)
  @Max(3_600_000)
  QUEUE_BACKOFF_BASE_MS: number = 2000;

  @IsInt()
  @Min(10)
  @Max(86_400_000)
  QUEUE_BACKOFF_MAX_MS: number = 300_000;

  /**
   * After a worker died during a channel call, how long past that call's timeout a redelivered
   * message waits for a provider callback proving it was sent before it is sent again.
   */
  @IsInt()
  @Min(0)
  @Max(600_000)
  QUEUE_UNCERTAIN_GRACE_MS: number = 10_000;

  /** Consecutive transient failures of one channel after which the whole channel pauses. */
  @IsInt()
  @Min(1)
  @Max(1000)
  QUEUE_CHANNEL_FAILURE_THRESHOLD: number = 5;

  /** WhatsApp Cloud API (the sandbox emulator in development and tests). */
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  WHATSAPP_GRAPH_URL: string = 'http://localhost:3900';

  @IsString()
  @Matches(/^v\d+\.\d+$/, { message: 'WHATSAPP_API_VERSION must look like v21.0' })
  WHATSAPP_API_VERSION: string = 'v21.0';

  @Secret({ when: (c: QueueConfig) => c.channelList.includes('whatsapp') })
  @IsString()
  WHATSAPP_ACCESS_TOKEN: string = SANDBOX_SECRETS.whatsappAccessToken;

  @IsInt()
  @Min(100)
  @Max(120_000)
  WHATSAPP_TIMEOUT_MS: number = 10_000;

  /** Messages per second per sending phone number (Cloud API default throughput: 80). */
  @IsInt()
  @Min(1)
  @Max(100_000)
  QUEUE_WHATSAPP_RATE_PER_SENDER: number = CHANNEL_SEND_RATES.whatsapp;

  /** Messages a sender may send at once before the rate applies (1: evenly spaced). */
  @IsInt()
  @Min(1)
  @Max(100_000)
  QUEUE_WHATSAPP_BURST_PER_SENDER: number = 1;

  /** Least time between two messages from one sender to one recipient; 0 disables. */
  @IsInt()
  @Min(0)
  @Max(3_600_000)
  QUEUE_WHATSAPP_RECIPIENT_INTERVAL_MS: number = 1000;

  get channelList(): Channel[] {
    return this.CHANNELS.split(',') as Channel[];
  }

  /** Telegram Bot API root: https://api.telegram.org in production; the sandbox by default. */
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  TELEGRAM_API_URL: string = 'http://localhost:3900/telegram';

  /** Messages per second per bot (Telegram documents about 30). */
  @IsInt()
  @Min(1)
  @Max(10_000)
  QUEUE_TELEGRAM_RATE_PER_BOT: number = CHANNEL_SEND_RATES.telegram;

  /** Least time between two messages of one bot to one chat (Telegram documents one per second). */
  @IsInt()
  @Min(0)
  @Max(600_000)
  QUEUE_TELEGRAM_CHAT_INTERVAL_MS: number = 1000;

  /** MAX Bot API: https://platform-api2.max.ru in production; the sandbox by default. */
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  MAX_API_URL: string = 'http://localhost:3900/max';

  /** Requests per second per bot (MAX allows 30). */
  @IsInt()
  @Min(1)
  @Max(10_000)
  QUEUE_MAX_RATE_PER_BOT: number = CHANNEL_SEND_RATES.max;

  /** Bot API sends (Telegram and MAX): a call that takes longer is abandoned with its outcome unknown. */
  @IsInt()
  @Min(100)
  @Max(120_000)
  BOT_API_TIMEOUT_MS: number = 10_000;

  /** Opens the bot tokens that bot messages carry sealed; the gateway's CREDENTIALS_KEYS. */
  @Secret({
    when: (c: QueueConfig) => c.channelList.some((ch) => ch === 'telegram' || ch === 'max'),
    development: hasDevelopmentKey,
  })
  @IsCredentialsKeys()
  CREDENTIALS_KEYS: string = DEV_CREDENTIALS_KEYS;

  /**
   * `true` lets addresses a tenant chose (media URLs that MAX messages upload) be plain HTTP and private or loopback
   * addresses: local receivers in development and tests (`pnpm stack`). Anything else keeps the
   * SSRF protection on, whatever NODE_ENV says.
   */
  @IsIn(['true', 'false'])
  ALLOW_PRIVATE_TARGETS: string = 'false';

  get allowPrivateTargets(): boolean {
    return this.ALLOW_PRIVATE_TARGETS === 'true';
  }
}
