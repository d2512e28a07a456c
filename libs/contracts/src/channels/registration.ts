import type { AddressKind } from '../addresses';

/** The services that read a channel's settings from their environment. */
export type ChannelService = 'api' | 'gateway' | 'queue';

/** A messenger carries messages to people; a course platform is a source of events that sends on messengers. */
export type ChannelKind = 'messenger' | 'course_platform';

/**
 * How a gateway account connects the channel: a linked api app (its WhatsApp number), a bot token
 * the channel confirms, or a course platform's root URL and key.
 */
export type ChannelConnection = 'app' | 'bot' | 'platform';

/**
 * How the api prices a message sent on the channel: `templates` by the category of its template
 * (MESSAGE_PRICES), `channel_table` by its own table in CHANNEL_MESSAGE_PRICES, `none` not at all.
 */
export type ChannelPricingRule = 'templates' | 'channel_table' | 'none';

/** A value that may differ by service (a timeout the gateway keeps shorter than the queue). */
export type PerService<T> = T | Readonly<Partial<Record<ChannelService, T>>>;

interface SettingBase {
  /** The environment variable, the same in every service that reads it. */
  readonly env: string;
  /** The services that read it; the others neither need nor validate it. */
  readonly services: readonly ChannelService[];
  /** What it is, for docs/operations.md and the start-up message. */
  readonly description: string;
}

export interface UrlSetting extends SettingBase {
  readonly type: 'url';
  readonly default: PerService<string>;
}

export interface TextSetting extends SettingBase {
  readonly type: 'text';
  readonly default: PerService<string>;
  /** The value must match it; `hint` says how, in the start-up message. */
  readonly pattern?: { readonly regex: RegExp; readonly hint: string };
  readonly minLength?: number;
  /** In production it must be set explicitly and differ from its default (the sandbox's value). */
  readonly secret?: boolean;
}

export interface NumberSetting extends SettingBase {
  /** `int`: a whole number; `number`: any number (a pace of 0.5 per second). */
  readonly type: 'int' | 'number';
  readonly default: PerService<number>;
  readonly min: PerService<number>;
  readonly max: PerService<number>;
}

export type ChannelSetting = UrlSetting | TextSetting | NumberSetting;

/** A channel's settings by the name its code reads them by. */
export type ChannelSettings = Readonly<Record<string, ChannelSetting>>;

/** The values of settings as a service read them: numbers for number settings, strings otherwise. */
export type ChannelSettingValues<S extends ChannelSettings> = {
  readonly [K in keyof S]: S[K] extends NumberSetting ? number : string;
};

/**
 * The pace of one sender of the channel, as keys of its `settings`: the queue's rate (whose default
 * is the channel's documented send rate and the campaign rate's default), burst and recipient
 * interval, and the api's campaign rate. Where one is absent the
 * connector's own default applies.
 */
export interface ChannelPacingRegistration {
  readonly settings: {
    readonly rate: string;
    readonly burst?: string;
    readonly recipientIntervalMs?: string;
    readonly campaignRate: string;
  };
}

/**
 * Everything the platform needs to know about one channel. Every list of channels (validation,
 * OpenAPI enums, the queue's workers, prices, pacing, the settings each service reads) derives from
 * the registrations, so a channel joins by registering (docs/channels.md#adding-a-channel).
 */
export interface ChannelRegistration<S extends ChannelSettings = ChannelSettings> {
  /** The channel's name on the wire (`channel` of messages, connections and contacts); lower case. */
  readonly name: string;
  readonly kind: ChannelKind;
  readonly connection: ChannelConnection;
  /** Whether `POST /v1/messages` of the gateway (and campaigns, contacts, failover) send on it. */
  readonly gatewaySends: boolean;
  /** False: the channel reports no delivery or read receipt, so a message ends at SENT and is charged when sent. */
  readonly receipts: boolean;
  readonly pricing: ChannelPricingRule;
  /** Absent: the channel is not paced (nothing is sent on it by the queue). */
  readonly pacing?: ChannelPacingRegistration;
  /** The environment variables each service reads for the channel, declared once with their defaults. */
  readonly settings: S;
  /** Its address kinds, the primary first; absent for a channel nobody is addressed on. */
  readonly addresses?: readonly AddressKind[];
  /**
   * How a send's `to` is read: the kinds (by name) a send may reach, all of `addresses` when absent,
   * and what a value none of them takes is told, each kind's message when absent.
   */
  readonly sendTo?: { readonly kinds?: readonly string[]; readonly message?: string };
}

/** The value of a per-service setting field in one service. */
export function forService<T>(value: PerService<T>, service: ChannelService): T | undefined {
  if (typeof value === 'object' && value !== null) return (value as Partial<Record<ChannelService, T>>)[service];
  return value as T;
}
