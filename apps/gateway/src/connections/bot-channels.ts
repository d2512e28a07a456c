import { SecretBox } from '@app/auth';
import { botAccessFactory, BotChannelAccess } from '@app/channels';
import { channelSettings } from '@app/config';
import { connectsWithBot, registeredChannels } from '@app/contracts';
import { UnprocessableProblem } from '@app/server';
import { GatewayConfig } from '../config';

export type { BotChannelAccess } from '@app/channels';

/** The sealing of bot tokens, shared with the queue through CREDENTIALS_KEYS. */
export class CredentialsBox {
  readonly box: SecretBox;
  constructor(config: GatewayConfig) {
    this.box = SecretBox.fromSpec(config.CREDENTIALS_KEYS);
  }
}

/**
 * The bot channels as the connections API uses them: each registered channel an account connects
 * with a bot token, through the access its channel registered (`registerBotAccessFactory`), built
 * from the settings the gateway read for it.
 */
export class BotChannels {
  private readonly access = new Map<string, BotChannelAccess>();

  constructor(config: GatewayConfig, credentials: CredentialsBox) {
    const ctx = {
      openCredential: (sealed: string) => credentials.box.open(sealed),
      allowPrivateTargets: config.allowPrivateTargets,
    };
    for (const reg of registeredChannels().filter(connectsWithBot)) {
      const factory = botAccessFactory(reg.name);
      if (factory) this.access.set(reg.name, factory(channelSettings(config, reg), ctx));
    }
  }

  /** The channel's access; 422 for a bot channel whose module registered none. */
  of(channel: string): BotChannelAccess {
    const access = this.access.get(channel);
    if (!access) {
      throw new UnprocessableProblem(
        'channel-not-connectable',
        'Channel not connectable',
        `Bots of ${channel} cannot be connected: its channel module registers no bot access.`,
      );
    }
    return access;
  }
}
