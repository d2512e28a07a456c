import { SecretBox } from '@app/auth';
import { MaxConnector, TelegramConnector } from '@app/channels';
import { channelSettings } from '@app/config';
import { MAX_CHANNEL, TELEGRAM_CHANNEL } from '@app/contracts';
import { TargetPolicy } from '@app/egress';
import { GatewayConfig } from '../config';
import { BotChannel } from './connection.entity';

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
}

/** The sealing of bot tokens, shared with the queue through CREDENTIALS_KEYS. */
export class CredentialsBox {
  readonly box: SecretBox;
  constructor(config: GatewayConfig) {
    this.box = SecretBox.fromSpec(config.CREDENTIALS_KEYS);
  }
}

/** Telegram and MAX as the connections API uses them (the connectors' management calls). */
export class BotChannels {
  private readonly access: Record<BotChannel, BotChannelAccess>;

  constructor(config: GatewayConfig, credentials: CredentialsBox, targets: TargetPolicy) {
    const openCredential = (s: string) => credentials.box.open(s);
    const telegram = new TelegramConnector({ ...channelSettings(config, TELEGRAM_CHANNEL), openCredential });
    const max = new MaxConnector({
      ...channelSettings(config, MAX_CHANNEL),
      openCredential,
      mediaTargets: targets,
    });
    const failed = (f: { status: number | null; description: string }) => ({
      ok: false as const,
      status: f.status,
      reason: f.description,
    });
    this.access = {
      telegram: {
        identify: async (token) => {
          const r = await telegram.getMe(token);
          return r.ok ? { ok: true, id: String(r.value.id), username: r.value.username ?? null } : failed(r.failure);
        },
        register: async (token, url, secret) => {
          const r = await telegram.setWebhook(token, url, secret);
          return r.ok ? { ok: true } : failed(r.failure);
        },
        unregister: async (token) => ({ ok: (await telegram.deleteWebhook(token)).ok }),
        acknowledge: async (token, update) => {
          const id = (update as { callback_query?: { id?: unknown } } | null)?.callback_query?.id;
          if (typeof id === 'string' && id) await telegram.answerCallbackQuery(token, id);
        },
      },
      max: {
        identify: async (token) => {
          const r = await max.getMe(token);
          return r.ok
            ? { ok: true, id: String(r.value.user_id), username: r.value.username ?? null }
            : failed(r.failure);
        },
        register: async (token, url, secret) => {
          const r = await max.subscribe(token, url, secret);
          return r.ok ? { ok: true } : failed(r.failure);
        },
        unregister: async (token, url) => ({ ok: (await max.unsubscribe(token, url)).ok }),
        // MAX shows no waiting state on a press; an answer (POST /answers) would have to carry a
        // message or a notification the business did not write.
        acknowledge: async () => undefined,
      },
    };
  }

  of(channel: BotChannel): BotChannelAccess {
    return this.access[channel];
  }
}
