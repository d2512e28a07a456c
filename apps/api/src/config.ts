import {
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Length,
  Max,
  Min,
  MinLength,
  Validate,
  ValidateIf,
  ValidatorConstraint,
  ValidatorConstraintInterface,
} from 'class-validator';
import { createHash } from 'node:crypto';
import { DatabaseConfig } from '@app/config';
import { MESSAGE_CATEGORIES, MessageCategory } from '@app/contracts';

export const WHATSAPP_MODES = ['sandbox', 'cloud'] as const;
export type WhatsAppMode = (typeof WHATSAPP_MODES)[number];

/** Default price table: marketing costs most, service (customer-initiated) conversations are free. */
export const DEFAULT_MESSAGE_PRICES =
  '{"MARKETING":0.05,"MARKETING_LITE":0.03,"UTILITY":0.02,"AUTHENTICATION":0.02,"SERVICE":0}';

/** MESSAGE_PRICES must name every category with a finite, non-negative price of at most 4 decimals. */
@ValidatorConstraint({ name: 'messagePrices' })
export class MessagePricesConstraint implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    if (typeof value !== 'string') return false;
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      return false;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return false;
    const table = parsed as Record<string, unknown>;
    const keys = Object.keys(table);
    return (
      keys.every((k) => (MESSAGE_CATEGORIES as readonly string[]).includes(k)) &&
      MESSAGE_CATEGORIES.every((c) => {
        const price = table[c];
        return (
          typeof price === 'number' &&
          Number.isFinite(price) &&
          price >= 0 &&
          Math.abs(Math.round(price * 1e4) - price * 1e4) < 1e-6
        );
      })
    );
  }

  defaultMessage(): string {
    return `MESSAGE_PRICES must be a JSON object giving a non-negative price (at most 4 decimals) for each of ${MESSAGE_CATEGORIES.join(', ')}`;
  }
}

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

  /**
   * Signs onboarding links (embed_link_url): the link itself is the credential of the business
   * that opens it. Required in production; development and tests derive one from the database URL.
   */
  @ValidateIf((c: ApiConfig) => c.NODE_ENV === 'production' || c.ONBOARDING_SECRET !== undefined)
  @IsString()
  @MinLength(32, { message: 'ONBOARDING_SECRET must be at least 32 characters' })
  ONBOARDING_SECRET?: string;

  /**
   * How businesses connect a WhatsApp number: `sandbox` (the emulator; default outside production)
   * or `cloud` (the channel's embedded signup; default in production).
   */
  @IsOptional()
  @IsIn(WHATSAPP_MODES)
  WHATSAPP_MODE?: WhatsAppMode;

  /** Meta app id and embedded-signup configuration id, for `WHATSAPP_MODE=cloud`. */
  @IsOptional()
  @IsString()
  WHATSAPP_APP_ID?: string;

  @IsOptional()
  @IsString()
  WHATSAPP_SIGNUP_CONFIG_ID?: string;

  /** How long the api waits for the WhatsApp channel (through the gateway) before answering 503. */
  @IsInt()
  @Min(100)
  @Max(60000)
  CHANNEL_RPC_TIMEOUT_MS: number = 10000;

  /** Periodic pull of template statuses from the channel; repairs missed callbacks. 0 disables. */
  @IsInt()
  @Min(0)
  TEMPLATE_SYNC_INTERVAL_MS: number = 300000;

  /**
   * Price per message category in the user's currency, as a JSON object of every category
   * (MARKETING, MARKETING_LITE, UTILITY, AUTHENTICATION, SERVICE) to a non-negative number.
   */
  @Validate(MessagePricesConstraint)
  MESSAGE_PRICES: string = DEFAULT_MESSAGE_PRICES;

  /** Requests per second each token may make (refilled continuously), shared by every replica. */
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  RATE_LIMIT_PER_SECOND: number = 100;

  /** How many requests a token may make at once after being idle (the bucket size). */
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  RATE_LIMIT_BURST: number = 100;

  /** How long an Idempotency-Key and its answer are kept and replayed, in hours. */
  @IsInt()
  @Min(1)
  @Max(720)
  IDEMPOTENCY_TTL_HOURS: number = 24;

  /** How often expired idempotency keys and idle rate-limit buckets are deleted. 0 disables. */
  @IsInt()
  @Min(0)
  HOUSEKEEPING_INTERVAL_MS: number = 600000;

  get messagePrices(): Record<MessageCategory, number> {
    return JSON.parse(this.MESSAGE_PRICES) as Record<MessageCategory, number>;
  }

  get whatsappMode(): WhatsAppMode {
    return this.WHATSAPP_MODE ?? (this.isProduction ? 'cloud' : 'sandbox');
  }

  get onboardingSecret(): string {
    return this.ONBOARDING_SECRET ?? createHash('sha256').update(`onboarding:${this.DATABASE_URL}`).digest('hex');
  }
}
