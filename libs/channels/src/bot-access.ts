import type { ChannelRegistration, ChannelSettings, ChannelSettingValues } from '@app/contracts';
import type { ConnectorContext } from './connector-factories';

/** What connecting a bot needs of its channel: check the token, point its updates at us, undo that. */
export interface BotChannelAccess {
  /** The bot behind the token, or the channel's refusal in its own words. */
  identify(
    token: string,
  ): Promise<{ ok: true; id: string; username: string | null } | { ok: false; status: number | null; reason: string }>;
  register(
    token: string,
    url: string,
    secret: string,
  ): Promise<{ ok: true } | { ok: false; status: number | null; reason: string }>;
  unregister(token: string, url: string): Promise<{ ok: boolean }>;
  /**
   * Answers a button press where the channel waits for it (Telegram shows a loading indicator until
   * then); nothing for other updates or channels that expect no answer.
   */
  acknowledge(token: string, update: unknown): Promise<void>;
  /**
   * Shows that a reply is being written in the chat with `chatId` (Telegram's `sendChatAction`; on
   * MAX the dialog is marked seen and shows "typing...", `POST /chats/{chatId}/actions`); absent on
   * channels that have no such action.
   */
  typing?(token: string, chatId: string): Promise<void>;
}

/** Builds a bot channel's access from the settings the gateway read for it. */
export type BotAccessFactory<S extends ChannelSettings = ChannelSettings> = (
  settings: ChannelSettingValues<S>,
  ctx: ConnectorContext,
) => BotChannelAccess;

const factories = new Map<string, BotAccessFactory>();

/**
 * Lets accounts connect a registered bot channel (`connection: 'bot'`) with `POST /v1/connections`:
 * the gateway checks tokens and points updates with the access this factory builds (a channel module
 * calls it beside `registerChannel` and `registerConnectorFactory`, docs/channels.md).
 */
export function registerBotAccessFactory<S extends ChannelSettings>(
  reg: ChannelRegistration<S>,
  factory: BotAccessFactory<S>,
): void {
  if (factories.has(reg.name)) throw new Error(`a bot access factory for channel "${reg.name}" is already registered`);
  factories.set(reg.name, factory as unknown as BotAccessFactory);
}

/** The factory of a bot channel's access, or undefined for a channel no account can connect a bot of. */
export function botAccessFactory(channel: string): BotAccessFactory | undefined {
  return factories.get(channel);
}
