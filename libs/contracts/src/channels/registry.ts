import { maskMiddle, type AddressKind } from '../addresses';
import { COURSE_CHANNEL } from './course';
import { MAX_CHANNEL } from './max';
import type {
  ChannelPacingRegistration,
  ChannelRegistration,
  ChannelService,
  ChannelSetting,
  NumberSetting,
} from './registration';
import { forService } from './registration';
import { TELEGRAM_CHANNEL } from './telegram';
import { WHATSAPP_CHANNEL } from './whatsapp';

// The channels built into the platform, as the code and the contracts' JSON Schemas name them (a
// line comment, so the AsyncAPI document is unchanged); others join with registerChannel.
export type Channel = 'whatsapp' | 'telegram' | 'max' | 'course';
// The built-in channels `POST /v1/messages` sends on.
export type GatewaySendChannel = Exclude<Channel, 'course'>;

const BUILT_IN_CHANNELS = [
  WHATSAPP_CHANNEL,
  TELEGRAM_CHANNEL,
  MAX_CHANNEL,
  COURSE_CHANNEL,
] as const satisfies readonly (ChannelRegistration & { name: Channel })[];

/** What a pacing setting paces: a sender's rate and burst, a recipient's interval, a campaign's rate. */
type PacingRole = keyof ChannelPacingRegistration['settings'];

const registrations = new Map<string, ChannelRegistration>();
const views: { names: string[]; accepts: (r: ChannelRegistration) => boolean }[] = [];
const settingOwners = new Map<string, { channel: string; setting: ChannelSetting }>();

/** Raised for a registration the registry refuses; the message names the channel and what is wrong. */
export class ChannelRegistrationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChannelRegistrationError';
  }
}

const CHANNEL_NAME = /^[a-z][a-z0-9_]{1,31}$/;

function problemsOf(reg: ChannelRegistration): string[] {
  const problems: string[] = [];
  if (!CHANNEL_NAME.test(reg.name)) problems.push('its name must be 2 to 32 lower-case letters, digits or _');
  if (registrations.has(reg.name)) problems.push('it is already registered');
  if (reg.gatewaySends && reg.kind !== 'messenger') problems.push('only a messenger can be sent on');
  for (const [role, key] of Object.entries(reg.pacing?.settings ?? {})) {
    if (!pacingSetting(reg, role as PacingRole)) {
      problems.push(`its pacing ${role} names "${key}", which is not a number setting of it`);
    }
  }
  for (const setting of Object.values(reg.settings)) {
    const owner = settingOwners.get(setting.env);
    if (owner && owner.setting !== setting) problems.push(`${setting.env} is already a setting of ${owner.channel}`);
  }
  return problems;
}

/**
 * Adds a channel: every list of channels, every validation of a channel name, the OpenAPI
 * documents built after it, the queue's workers and the settings each service reads include it
 * from then on. Register before the services load their configuration (CHANNEL_MODULES does).
 */
export function registerChannel(reg: ChannelRegistration): void {
  const problems = problemsOf(reg);
  if (problems.length > 0) {
    throw new ChannelRegistrationError(`channel "${reg.name}" cannot be registered: ${problems.join('; ')}`);
  }
  registrations.set(reg.name, reg);
  for (const setting of Object.values(reg.settings)) {
    if (!settingOwners.has(setting.env)) settingOwners.set(setting.env, { channel: reg.name, setting });
  }
  for (const view of views) if (view.accepts(reg)) view.names.push(reg.name);
}

/** Every registered channel, the built-in ones first, then in the order they registered. */
export function registeredChannels(): readonly ChannelRegistration[] {
  return [...registrations.values()];
}

/** The channel's registration, or undefined for a name no channel registered. */
export function channelRegistration(name: string): ChannelRegistration | undefined {
  return registrations.get(name);
}

/** Whether a value is the name of a registered channel (that `accepts`, when given). */
export function isRegisteredChannel(
  value: unknown,
  accepts: (r: ChannelRegistration) => boolean = () => true,
): boolean {
  const reg = typeof value === 'string' ? registrations.get(value) : undefined;
  return reg !== undefined && accepts(reg);
}

/**
 * The names of the registered channels that `accepts`, as a live list: registering a channel
 * appends to it, so a list taken at import (an OpenAPI enum, an `IN` parameter) names every channel
 * registered before it is read.
 */
export function channelNames(accepts: (r: ChannelRegistration) => boolean = () => true): readonly string[] {
  const names = [...registrations.values()].filter(accepts).map((r) => r.name);
  views.push({ names, accepts });
  return names;
}

/** The channels `POST /v1/messages` of the gateway, campaigns and failover routes send on. */
export const sendsFromGateway = (r: ChannelRegistration): boolean => r.gatewaySends;
/** The channels that report no delivery or read receipt. */
export const isReceiptless = (r: ChannelRegistration): boolean => r.kind === 'messenger' && !r.receipts;
/** The channels an account connects with a bot token. */
export const connectsWithBot = (r: ChannelRegistration): boolean => r.connection === 'bot';
/** The channels priced by their own table of CHANNEL_MESSAGE_PRICES. */
export const pricedByChannelTable = (r: ChannelRegistration): boolean => r.pricing === 'channel_table';

/** Every channel: the queue delivers to them, the gateway connects them. */
export const CHANNELS = channelNames() as readonly Channel[];
/** Channels a gateway account can send on with `POST /v1/messages`. */
export const GATEWAY_SEND_CHANNELS = channelNames(sendsFromGateway) as readonly GatewaySendChannel[];
/**
 * Channels that report no delivery or read receipt to a sender: a message ends at SENT there and is
 * charged when it is sent.
 */
export const RECEIPTLESS_CHANNELS: readonly string[] = channelNames(isReceiptless);

/**
 * The status at which a message on `channel` is final and charged, the one definition the message,
 * its charge (the transaction) and the usage report share: SENT on a channel without receipts
 * (nothing follows it there), DELIVERED on the others.
 */
export function chargedStatusOf(channel: string): 'SENT' | 'DELIVERED' {
  const reg = registrations.get(channel);
  return reg !== undefined && isReceiptless(reg) ? 'SENT' : 'DELIVERED';
}

/**
 * A recipient as answers show it, masked the way its address kind on `channel` says (a phone, a
 * Telegram chat id or @username, a MAX user id: partly shown, never whole); a value no kind of the
 * channel reads is hidden but for its first and last characters.
 */
export function maskAddress(channel: string, value: string): string {
  for (const kind of registrations.get(channel)?.addresses ?? []) {
    if (kind.canonical(value) !== null) return kind.mask(value);
  }
  return maskMiddle(value, 1, 1);
}

export function isChannel(value: unknown): value is Channel {
  return isRegisteredChannel(value);
}

/** The channels a contact can have addresses on (those registered with address kinds), in the order answers and exports list them. */
export function addressChannels(): readonly string[] {
  return [...registrations.values()].filter((r) => (r.addresses?.length ?? 0) > 0).map((r) => r.name);
}

/**
 * The address kinds of a channel as its registration declares them, its primary one (what sends
 * reach by default) first; none for a channel without addresses or a name no channel registered.
 */
export function addressKindsOf(channel: string): readonly AddressKind[] {
  return registrations.get(channel)?.addresses ?? [];
}

/** A channel's kind by name, or undefined. */
export function addressKindOf(channel: string, kind: string): AddressKind | undefined {
  return addressKindsOf(channel).find((k) => k.kind === kind);
}

/** The kind of a channel's address by which its people are reached by default (the phone on WhatsApp). */
export function primaryAddressKind(channel: string): AddressKind | undefined {
  return addressKindsOf(channel)[0];
}

/** Whether `kind` is the channel's primary address kind; an address given without a kind is of it. */
export function isPrimaryKind(channel: string, kind: string | undefined): boolean {
  return kind === undefined || kind === primaryAddressKind(channel)?.kind;
}

/**
 * Who a send's `to` can name on a channel (its registration's `sendTo`, else every address kind of
 * it) and what a value none of them takes is told.
 */
export function sendRecipient(channel: string): { kinds: readonly AddressKind[]; message: string } {
  const sendTo = registrations.get(channel)?.sendTo;
  const all = addressKindsOf(channel);
  const kinds = sendTo?.kinds ? all.filter((k) => sendTo.kinds!.includes(k.kind)) : all;
  return { kinds, message: sendTo?.message ?? `to ${kinds.map((k) => k.message).join(', or ')}` };
}

/** The setting of a channel's pacing role, or undefined when the channel does not set that role. */
export function pacingSetting(reg: ChannelRegistration, role: PacingRole): NumberSetting | undefined {
  const key = reg.pacing?.settings[role];
  const setting = key === undefined ? undefined : reg.settings[key];
  return setting && setting.type !== 'url' && setting.type !== 'text' ? setting : undefined;
}

/**
 * Messages per second one sender may send on each paced channel (a WhatsApp number: the Cloud API's
 * default throughput of 80; a Telegram bot: about 30; a MAX bot: 30): the default of its queue rate.
 */
export function channelSendRates(): Readonly<Record<string, number>> {
  const rates: Record<string, number> = {};
  for (const reg of registrations.values()) {
    const rate = pacingSetting(reg, 'rate');
    const value = rate && forService(rate.default, 'queue');
    if (value !== undefined) rates[reg.name] = value;
  }
  return rates;
}

/** The settings a service reads for the channel, by the name its code reads them by. */
export function settingsFor(reg: ChannelRegistration, service: ChannelService): [string, ChannelSetting][] {
  return Object.entries(reg.settings).filter(([, s]) => s.services.includes(service));
}

for (const reg of BUILT_IN_CHANNELS) registerChannel(reg);
