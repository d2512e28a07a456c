import type { ChannelRegistration, ChannelSettings, ChannelSettingValues } from '@app/contracts';
import type { ChannelConnector, PacingLimits } from './channel-connector';

/** What the queue hands a connector factory besides the channel's settings. */
export interface ConnectorContext {
  /** Opens a credential a message carries sealed (a bot token). */
  openCredential(sealed: string): string;
  /** Whether addresses a tenant chose (media URLs) may be plain HTTP, private or loopback. */
  allowPrivateTargets: boolean;
}

/** Builds a channel's connector from the settings the queue read for it. */
export type ConnectorFactory<S extends ChannelSettings = ChannelSettings> = (
  settings: ChannelSettingValues<S>,
  ctx: ConnectorContext,
) => ChannelConnector;

const factories = new Map<string, ConnectorFactory>();

/**
 * Makes the queue deliver to a registered channel: its workers start with a connector this
 * factory builds (a channel module calls it beside `registerChannel`, docs/channels.md).
 */
export function registerConnectorFactory<S extends ChannelSettings>(
  reg: ChannelRegistration<S>,
  factory: ConnectorFactory<S>,
): void {
  if (factories.has(reg.name)) throw new Error(`a connector factory for channel "${reg.name}" is already registered`);
  factories.set(reg.name, factory as unknown as ConnectorFactory);
}

/** The factory of a channel's connector, or undefined for a channel the queue cannot deliver to. */
export function connectorFactory(channel: string): ConnectorFactory | undefined {
  return factories.get(channel);
}

/** The pacing a channel's settings give, by the roles its registration names (`pacing.settings`). */
export function pacingOf(
  reg: ChannelRegistration,
  settings: Readonly<Record<string, string | number>>,
): Partial<PacingLimits> {
  const roles = reg.pacing?.settings;
  const value = (key: string | undefined) => (key === undefined ? undefined : (settings[key] as number | undefined));
  const pacing: Partial<PacingLimits> = {};
  const rate = value(roles?.rate);
  const burst = value(roles?.burst);
  const interval = value(roles?.recipientIntervalMs);
  if (rate !== undefined) pacing.ratePerSender = rate;
  if (burst !== undefined) pacing.burst = burst;
  if (interval !== undefined) pacing.recipientIntervalMs = interval;
  return pacing;
}
