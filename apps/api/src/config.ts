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
  ValidationArguments,
  ValidateIf,
  ValidatorConstraint,
  ValidatorConstraintInterface,
} from 'class-validator';
import { createHash } from 'node:crypto';
import { channelSettings, PublicApiConfig, Secret } from '@app/config';
import {
  ChannelPacing,
  channelNames,
  MESSAGE_CATEGORIES,
  MessageCategory,
  pricedByChannelTable,
  registeredChannels,
} from '@app/contracts';

export const WHATSAPP_MODES = ['sandbox', 'cloud'] as const;
export type WhatsAppMode = (typeof WHATSAPP_MODES)[number];

/**
 * Default price table: marketing costs most, service (customer-initiated) conversations are free;
 * an authentication message the channel bills at its international rate costs more than one at
 * the local rate.
 */
export const DEFAULT_MESSAGE_PRICES =
  '{"MARKETING":0.05,"MARKETING_LITE":0.03,"UTILITY":0.02,"AUTHENTICATION":0.02,"AUTHENTICATION_INTERNATIONAL":0.04,"SERVICE":0}';

/**
 * Categories a price table may leave out, and whose price it then takes: the channel bills
 * AUTHENTICATION_INTERNATIONAL only in some countries, and tables written before it existed
 * charge it as AUTHENTICATION.
 */
const OPTIONAL_PRICES: Partial<Record<MessageCategory, MessageCategory>> = {
  AUTHENTICATION_INTERNATIONAL: 'AUTHENTICATION',
};

/** A price table with the optional categories it leaves out filled in. */
function completePriceTable(table: Record<string, number>): Record<MessageCategory, number> {
  const out = { ...table } as Record<MessageCategory, number>;
  for (const [category, fallback] of Object.entries(OPTIONAL_PRICES) as [MessageCategory, MessageCategory][]) {
    out[category] ??= out[fallback];
  }
  return out;
}

/** A price table: every category (but the optional ones) with a finite, non-negative price of at most 4 decimals. */
function isPriceTable(parsed: unknown): boolean {
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return false;
  const table = parsed as Record<string, unknown>;
  return (
    Object.keys(table).every((k) => (MESSAGE_CATEGORIES as readonly string[]).includes(k)) &&
    MESSAGE_CATEGORIES.every((c) => {
      const price = table[c];
      if (price === undefined && c in OPTIONAL_PRICES) return true;
      return (
        typeof price === 'number' &&
        Number.isFinite(price) &&
        price >= 0 &&
        Math.abs(Math.round(price * 1e4) - price * 1e4) < 1e-6
      );
    })
  );
}

function parsedJson(value: unknown): unknown {
  if (typeof value !== 'string') return undefined;
  try {
    return JSON.parse(value);
  } catch {
    return undefined;
  }
}

/** MESSAGE_PRICES must name every category with a finite, non-negative price of at most 4 decimals. */
@ValidatorConstraint({ name: 'messagePrices' })
export class MessagePricesConstraint implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return isPriceTable(parsedJson(value));
  }

  defaultMessage(): string {
    return `MESSAGE_PRICES must be a JSON object giving a non-negative price (at most 4 decimals) for each of ${MESSAGE_CATEGORIES.join(', ')} (${Object.keys(OPTIONAL_PRICES).join(', ')} optional)`;
  }
}

/** Channels whose sends have their own price table (the bot channels: `pricing: 'channel_table'`). */
export const PRICED_BOT_CHANNELS = channelNames(pricedByChannelTable);

const FREE = Object.fromEntries(MESSAGE_CATEGORIES.map((c) => [c, 0]));
/** Every channel priced by its own table sends for free unless CHANNEL_MESSAGE_PRICES says otherwise. */
export const defaultChannelMessagePrices = (): string =>
  JSON.stringify(Object.fromEntries(PRICED_BOT_CHANNELS.map((c) => [c, FREE])));

/** CHANNEL_MESSAGE_PRICES: a price table (as MESSAGE_PRICES) for each channel priced by its own table. */
@ValidatorConstraint({ name: 'channelMessagePrices' })
export class ChannelMessagePricesConstraint implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    const parsed = parsedJson(value) as Record<string, unknown> | undefined;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return false;
    return (
      Object.keys(parsed).every((k) => (PRICED_BOT_CHANNELS as readonly string[]).includes(k)) &&
      PRICED_BOT_CHANNELS.every((c) => isPriceTable(parsed[c]))
    );
  }

  defaultMessage(): string {
    return `CHANNEL_MESSAGE_PRICES must be a JSON object giving, for each of ${PRICED_BOT_CHANNELS.join(', ')}, a price table like MESSAGE_PRICES`;
  }
}

/** Sandbox numbers are made up and never verified: production connects real numbers only. */
@ValidatorConstraint({ name: 'noSandboxInProduction' })
export class NoSandboxInProductionConstraint implements ValidatorConstraintInterface {
  validate(value: unknown, args: ValidationArguments): boolean {
    return !(value === 'sandbox' && (args.object as ApiConfig).NODE_ENV === 'production');
  }

  defaultMessage(): string {
    return 'WHATSAPP_MODE must not be sandbox in production';
  }
}

/** Consent is always enforced in production. */
@ValidatorConstraint({ name: 'consentCheckInProduction' })
export class ConsentCheckInProductionConstraint implements ValidatorConstraintInterface {
  validate(value: unknown, args: ValidationArguments): boolean {
    return !(value === 'off' && (args.object as ApiConfig).NODE_ENV === 'production');
  }

  defaultMessage(): string {
    return 'CONSENT_CHECK must not be off in production';
  }
}

export class ApiConfig extends PublicApiConfig {
  /** Reads each registered channel's api settings (its campaign pacing), declared by its registration. */
  static readonly channelService = 'api';

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
  @Secret()
  @ValidateIf((c: ApiConfig) => c.NODE_ENV === 'production' || c.ONBOARDING_SECRET !== undefined)
  @IsString()
  @MinLength(32, { message: 'ONBOARDING_SECRET must be at least 32 characters' })
  ONBOARDING_SECRET?: string;

  /** How long an onboarding link (embed_link_url) stays valid; its owner can ask for a fresh one. */
  @IsInt()
  @Min(1)
  @Max(24 * 90)
  ONBOARDING_LINK_TTL_HOURS: number = 24 * 7;

  /**
   * How businesses connect a WhatsApp number: `sandbox` (the emulator; default outside production)
   * or `cloud` (the channel's embedded signup; default in production).
   */
  @IsOptional()
  @IsIn(WHATSAPP_MODES)
  @Validate(NoSandboxInProductionConstraint)
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
   * Periodic pull of each connected number's quality rating, messaging limit tier and status from
   * the channel; repairs missed account callbacks. 0 disables.
   */
  @IsInt()
  @Min(0)
  APP_SIGNALS_SYNC_INTERVAL_MS: number = 900000;

  /**
   * Price per message category in the user's currency, as a JSON object of every category
   * (MARKETING, MARKETING_LITE, UTILITY, AUTHENTICATION, SERVICE, and optionally
   * AUTHENTICATION_INTERNATIONAL, which otherwise costs what AUTHENTICATION costs) to a
   * non-negative number.
   */
  @Validate(MessagePricesConstraint)
  MESSAGE_PRICES: string = DEFAULT_MESSAGE_PRICES;

  /**
   * Price per message category of the gateway's bot channels, as a JSON object
   * `{"telegram": {...}, "max": {...}}` of price tables like MESSAGE_PRICES (WhatsApp uses
   * MESSAGE_PRICES). By default bot messages are free.
   */
  @Validate(ChannelMessagePricesConstraint)
  CHANNEL_MESSAGE_PRICES: string = defaultChannelMessagePrices();

  /** How long an Idempotency-Key and its answer are kept and replayed, in hours. */
  @IsInt()
  @Min(1)
  @Max(720)
  IDEMPOTENCY_TTL_HOURS: number = 24;

  /**
   * The lease of a key in progress: the request holding it renews it every fifth of this while it
   * runs, so a key not renewed for this long belongs to a request whose process died (or lost the
   * database): the next request with it learns what that one achieved (or runs it). A retry after
   * a crash waits at most this long, however long the first request had run.
   */
  @IsInt()
  @Min(2)
  @Max(3600)
  IDEMPOTENCY_LEASE_SECONDS: number = 5;

  /** How often expired idempotency keys and idle rate-limit buckets are deleted. 0 disables. */
  @IsInt()
  @Min(0)
  HOUSEKEEPING_INTERVAL_MS: number = 600000;

  /** Most sends of one user committed in one transaction (they are grouped while the previous commits). */
  @IsInt()
  @Min(1)
  @Max(10_000)
  SEND_BATCH_MAX: number = 256;

  /** How old an outbox row must be before the relay publishes it (the request path normally has). */
  @IsInt()
  @Min(0)
  OUTBOX_RELAY_AFTER_MS: number = 10_000;

  /** How often the outbox relay and the receipt reconciler run. 0 disables both. */
  @IsInt()
  @Min(0)
  SETTLEMENT_INTERVAL_MS: number = 5_000;

  /** A message with no final status this long after its acceptance fails as `no_receipt` and its hold is released. */
  @IsInt()
  @Min(1)
  RECEIPT_TIMEOUT_MINUTES: number = 1440;

  /**
   * Keys the hash under which consent keeps channel addresses (docs/consent.md): an opt-out stays
   * after its contact is erased, without the address. Required in production and never changed
   * afterwards (a new key forgets every recorded consent); development and tests derive one from
   * the database URL.
   */
  @Secret()
  @ValidateIf((c: ApiConfig) => c.NODE_ENV === 'production' || c.CONSENT_ADDRESS_SECRET !== undefined)
  @IsString()
  @MinLength(32, { message: 'CONSENT_ADDRESS_SECRET must be at least 32 characters' })
  CONSENT_ADDRESS_SECRET?: string;

  /**
   * `off` skips the consent check on sends: only for measuring what the check costs
   * (`pnpm bench contacts`); refused in production.
   */
  @IsIn(['on', 'off'])
  @Validate(ConsentCheckInProductionConstraint)
  CONSENT_CHECK: 'on' | 'off' = 'on';

  /**
   * A failover attempt with a channel still to try that has no final status this long after its
   * acceptance fails as `no_receipt` and the next channel gets the message (docs/failover.md).
   */
  @IsInt()
  @Min(1)
  FAILOVER_RECEIPT_SECONDS: number = 600;

  /** How often the campaign runner takes each running campaign's next recipients (docs/campaigns.md). */
  @IsInt()
  @Min(10)
  @Max(60_000)
  CAMPAIGN_TICK_MS: number = 200;

  /** How long a recipient the runner took stays its own: a runner that dies mid-send leaves it to another after this. */
  @IsInt()
  @Min(1)
  @Max(3600)
  CAMPAIGN_CLAIM_SECONDS: number = 30;

  /** Most recipients one runner takes in one tick, over all the campaigns it serves (its sends in flight at once). */
  @IsInt()
  @Min(1)
  @Max(10_000)
  CAMPAIGN_BATCH_MAX: number = 500;

  /** The campaign runner's pacing per sender, by channel. */
  get campaignPacing(): ChannelPacing {
    const pacing: Record<string, number> = {};
    for (const reg of registeredChannels()) {
      const key = reg.pacing?.settings.campaignRate;
      if (key !== undefined) pacing[reg.name] = Number(channelSettings(this, reg)[key]);
    }
    return pacing as ChannelPacing;
  }

  get messagePrices(): Record<MessageCategory, number> {
    return completePriceTable(JSON.parse(this.MESSAGE_PRICES) as Record<string, number>);
  }

  get channelMessagePrices(): Record<string, Record<MessageCategory, number>> {
    const tables = JSON.parse(this.CHANNEL_MESSAGE_PRICES) as Record<string, Record<string, number>>;
    return Object.fromEntries(PRICED_BOT_CHANNELS.map((c) => [c, completePriceTable(tables[c])]));
  }

  get whatsappMode(): WhatsAppMode {
    return this.WHATSAPP_MODE ?? (this.isProduction ? 'cloud' : 'sandbox');
  }

  get consentAddressSecret(): string {
    return (
      this.CONSENT_ADDRESS_SECRET ?? createHash('sha256').update(`consent-address:${this.DATABASE_URL}`).digest('hex')
    );
  }

  get onboardingSecret(): string {
    return this.ONBOARDING_SECRET ?? createHash('sha256').update(`onboarding:${this.DATABASE_URL}`).digest('hex');
  }
}
