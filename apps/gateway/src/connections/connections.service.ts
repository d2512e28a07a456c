import { Injectable, Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { hashToken } from '@app/auth';
import { APPS_RPC, connectsWithBot, DescribeAppReply, isRegisteredChannel, isUuid } from '@app/contracts';
import { RpcClient } from '@app/messaging';
import {
  ConflictProblem,
  ForbiddenProblem,
  NotFoundProblem,
  ServiceUnavailableProblem,
  UnprocessableProblem,
  ValidationProblem,
} from '@app/server';
import { TargetPolicy } from '@app/egress';
import { AuthenticatedAccount } from '../accounts/authenticated-account';
import { GatewayConfig } from '../config';
import { BotChannels, CredentialsBox } from './bot-channels';
import { BotChannel, ConnectionChannel, ConnectionEntity } from './connection.entity';
import { ConnectionsRepository, ConnectionTakenError } from './connections.repository';
import { CreateConnectionDto } from './dto/create-connection.dto';

/** A connection as its account sees it: never its token or inbound secret. */
export interface ConnectionView {
  id: string;
  channel: string;
  state: string;
  app_id?: number;
  bot?: { id: string; username: string | null };
  /** Bots: where the channel posts updates (registered with the channel on connect); course: where the platform posts its events. */
  inbound_url?: string;
  /** Course: where status events are posted (base_url + events_path). */
  base_url?: string;
  events_path?: string;
  /** Course: the secret the platform sends with every event; shown once, on create. */
  secret?: string;
  created_at: number;
  updated_at: number;
}

/** Where a course platform receives status events, under its base_url, unless the connection says otherwise. */
export const DEFAULT_EVENTS_PATH = '/messaging/events';

const isBotChannel = (c: ConnectionChannel): c is BotChannel => isRegisteredChannel(c, connectsWithBot);

const APP_RPC_TIMEOUT_MS = 3000;

/**
 * Connecting channels to an account: a WhatsApp app of the account's user, or a Telegram or MAX bot
 * whose token the channel confirms and whose updates are pointed at the gateway with a fresh secret.
 */
@Injectable()
export class ConnectionsService {
  private readonly logger = new Logger('Connections');

  constructor(
    private readonly connections: ConnectionsRepository,
    private readonly bots: BotChannels,
    private readonly credentials: CredentialsBox,
    private readonly rpc: RpcClient,
    private readonly config: GatewayConfig,
    private readonly targets: TargetPolicy,
  ) {}

  inboundUrl(channel: BotChannel | 'course', id: string): string {
    const root = this.config.GATEWAY_PUBLIC_URL.replace(/\/+$/, '');
    return channel === 'course' ? `${root}/v1/course/events/${id}` : `${root}/v1/inbound/${channel}/${id}`;
  }

  view(c: ConnectionEntity): ConnectionView {
    return {
      id: c.id,
      channel: c.channel,
      state: c.state,
      ...(c.appId !== null ? { app_id: c.appId } : {}),
      ...(c.botId !== null ? { bot: { id: c.botId, username: c.botUsername } } : {}),
      ...(c.baseUrl !== null ? { base_url: c.baseUrl, events_path: c.eventsPath ?? DEFAULT_EVENTS_PATH } : {}),
      ...(c.channel !== 'whatsapp' && c.state !== 'disconnected'
        ? { inbound_url: this.inboundUrl(c.channel, c.id) }
        : {}),
      created_at: Math.floor(c.createdAt.getTime() / 1000),
      updated_at: Math.floor(c.updatedAt.getTime() / 1000),
    };
  }

  /** The new connection, with the course platform's inbound secret (shown this once). */
  async create(
    account: AuthenticatedAccount,
    dto: CreateConnectionDto,
  ): Promise<{ connection: ConnectionEntity; secret?: string }> {
    if (dto.channel === 'course') return this.connectCourse(account, dto);
    return {
      connection:
        dto.channel === 'whatsapp'
          ? await this.linkApp(account, dto.app_id!)
          : await this.connectBot(account, dto.channel, dto.bot_token!),
    };
  }

  async list(account: AuthenticatedAccount): Promise<ConnectionEntity[]> {
    return this.connections.listForAccount(account.id);
  }

  /** One of the account's connections: 404 when there is none with that id, 403 when it is another account's. */
  async get(account: AuthenticatedAccount, id: string): Promise<ConnectionEntity> {
    const c = isUuid(id) ? await this.connections.findById(id.toLowerCase()) : null;
    if (!c) throw new NotFoundProblem('connection');
    if (c.accountId !== account.id) throw new ForbiddenProblem('The connection belongs to another account.');
    return c;
  }

  /** Disconnects: the bot's updates stop coming here, its token and secret are forgotten. */
  async remove(account: AuthenticatedAccount, id: string): Promise<void> {
    const c = await this.get(account, id);
    if (c.state === 'disconnected') return;
    if (isBotChannel(c.channel) && c.credential) {
      const token = this.credentials.box.open(c.credential);
      const undone = await this.bots.of(c.channel).unregister(token, this.inboundUrl(c.channel, c.id));
      // The secret is dropped below, so updates that still arrive are refused even if the channel did not answer.
      if (!undone.ok)
        this.logger.warn({ connectionId: c.id, channel: c.channel }, 'the channel did not confirm the webhook removal');
    }
    await this.connections.disconnect(c.id);
  }

  private async linkApp(account: AuthenticatedAccount, appId: number): Promise<ConnectionEntity> {
    if (!account.userId)
      throw new UnprocessableProblem(
        'account-not-linked',
        'Account not linked',
        'The account is not linked to a user of the API, so it has no apps.',
      );
    const app: DescribeAppReply = await this.rpc.call(
      APPS_RPC.describe,
      { app_id: appId },
      { timeoutMs: APP_RPC_TIMEOUT_MS, unavailable: 'The apps cannot be checked right now; retry later.' },
    );
    if (!app.found) throw new NotFoundProblem('app');
    if (app.user_id !== account.userId) throw new ForbiddenProblem('The app belongs to another user.');
    if (app.status !== 'ACTIVE' || app.is_stopped || !app.phone_number_id) {
      throw new UnprocessableProblem(
        'app-not-active',
        'App not active',
        `Only an ACTIVE app with a connected number can be linked; this one is ${app.is_stopped ? 'stopped' : app.status}${app.phone_number_id ? '' : ' with no number'}.`,
      );
    }
    return this.insert({
      accountId: account.id,
      channel: 'whatsapp',
      appId,
      botId: null,
      botUsername: null,
      credential: null,
      inboundSecretHash: null,
      baseUrl: null,
      eventsPath: null,
    });
  }

  /**
   * A course platform: its base_url must pass the target policy (the gateway will post there: https
   * and public addresses, no credentials in the URL; checked again before every post); a fresh
   * secret it sends with every event (kept as its SHA-256 only) and its api key sealed for signing
   * the status events. An account has at most COURSE_MAX_CONNECTIONS_PER_ACCOUNT live ones.
   */
  private async connectCourse(
    account: AuthenticatedAccount,
    dto: CreateConnectionDto,
  ): Promise<{ connection: ConnectionEntity; secret: string }> {
    const target = await this.targets.check(dto.base_url!);
    if (!target.ok) throw new ValidationProblem([{ field: 'base_url', message: `base_url ${target.reason}` }]);
    const max = this.config.COURSE_MAX_CONNECTIONS_PER_ACCOUNT;
    const secret = randomBytes(32).toString('base64url');
    const connection = await this.insert(
      {
        accountId: account.id,
        channel: 'course',
        appId: null,
        botId: null,
        botUsername: null,
        credential: this.credentials.box.seal(dto.api_key!),
        inboundSecretHash: hashToken(secret),
        baseUrl: dto.base_url!.replace(/\/+$/, ''),
        eventsPath: dto.events_path ?? DEFAULT_EVENTS_PATH,
      },
      uuidv7(),
      max,
    );
    if (!connection) {
      throw new ConflictProblem(
        'connection-limit-reached',
        'Connection limit reached',
        `An account may have at most ${max} live course connections; delete one before creating another.`,
      );
    }
    return { connection, secret };
  }

  private async connectBot(
    account: AuthenticatedAccount,
    channel: BotChannel,
    token: string,
  ): Promise<ConnectionEntity> {
    const channelApi = this.bots.of(channel);
    const bot = await channelApi.identify(token);
    if (!bot.ok) throw this.channelRefusal(channel, bot, 'The bot token was refused by the channel');
    // Refused before the webhook is touched: pointing it at a new connection would cut off the live one.
    if (await this.connections.liveForAccount(account.id, channel)) throw this.taken(channel, 'account');
    if (await this.connections.liveBot(channel, bot.id)) throw this.taken(channel, 'bot');
    const id = uuidv7();
    const secret = randomBytes(32).toString('base64url');
    const registered = await channelApi.register(token, this.inboundUrl(channel, id), secret);
    if (!registered.ok) throw this.channelRefusal(channel, registered, 'The channel refused the webhook');
    try {
      return await this.insert(
        {
          accountId: account.id,
          channel,
          appId: null,
          botId: bot.id,
          botUsername: bot.username,
          credential: this.credentials.box.seal(token),
          inboundSecretHash: hashToken(secret),
          baseUrl: null,
          eventsPath: null,
        },
        id,
      );
    } catch (err) {
      // Not connected after all: leave the bot as it was (its webhook pointed nowhere of ours).
      await channelApi.unregister(token, this.inboundUrl(channel, id)).catch(() => undefined);
      throw err;
    }
  }

  private channelRefusal(channel: BotChannel, r: { status: number | null; reason: string }, title: string) {
    if (r.status === null || r.status >= 500 || r.status === 429) {
      return new ServiceUnavailableProblem(`${channel} could not be reached or is busy; retry later.`);
    }
    return new UnprocessableProblem(
      'channel-refused',
      title,
      `${channel} answered ${r.status}: ${r.reason}`.slice(0, 500),
      { channel_status: r.status },
    );
  }

  private async insert(
    row: Omit<ConnectionEntity, 'id' | 'state' | 'createdAt' | 'updatedAt'>,
    id: string,
    maxLive: number,
  ): Promise<ConnectionEntity | null>;
  private async insert(
    row: Omit<ConnectionEntity, 'id' | 'state' | 'createdAt' | 'updatedAt'>,
    id?: string,
  ): Promise<ConnectionEntity>;
  private async insert(
    row: Omit<ConnectionEntity, 'id' | 'state' | 'createdAt' | 'updatedAt'>,
    id = uuidv7(),
    maxLive = Number.MAX_SAFE_INTEGER,
  ): Promise<ConnectionEntity | null> {
    try {
      return await this.connections.insertCapped({ id, state: 'active', ...row }, maxLive);
    } catch (err) {
      if (err instanceof ConnectionTakenError) {
        throw this.taken(row.channel, err.constraint === 'connections_account_channel' ? 'account' : 'bot');
      }
      throw err;
    }
  }

  private taken(channel: string, by: 'account' | 'bot'): ConflictProblem {
    const what =
      by === 'account'
        ? `The account already has a live ${channel} connection`
        : 'This bot or app is already connected';
    return new ConflictProblem('connection-exists', 'Already connected', `${what}; delete it first.`);
  }
}
