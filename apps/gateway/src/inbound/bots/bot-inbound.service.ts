import { Injectable, Logger } from '@nestjs/common';
import type { Update as TelegramUpdate } from '@grammyjs/types';
import type { Update as MaxUpdate } from '@maxhub/max-bot-api/types';
import { constantTimeEqual, hashToken } from '@app/auth';
import { normalizeMaxUpdate, normalizeTelegramUpdate } from '@app/channels';
import { EventEnvelope, isUuid, MessageReceivedData } from '@app/contracts';
import { EventPublisher } from '@app/messaging';
import { Clock, counter, ProblemError, ServiceUnavailableProblem } from '@app/server';
import { BotChannels, CredentialsBox } from '../../connections/bot-channels';
import { BotChannel } from '../../connections/connection.entity';
import { CallbackConnection, ConnectionsRepository } from '../../connections/connections.repository';

/** 401 for a bot update without the connection's secret (or for no such live connection). */
export class InvalidBotSecretProblem extends ProblemError {
  constructor(header: string) {
    super(401, 'invalid-secret', 'Invalid secret', `${header} is missing or does not match the connection.`);
  }
}

const updates = () =>
  counter('bot_updates_total', 'Bot channel updates by channel and outcome', ['channel', 'outcome']);

const NORMALIZE: Record<
  BotChannel,
  (update: unknown, connectionId: string, now: Date) => EventEnvelope<MessageReceivedData> | null
> = {
  telegram: (u, id, now) => normalizeTelegramUpdate(u as TelegramUpdate, id, now),
  max: (u, id, now) => normalizeMaxUpdate(u as MaxUpdate, id, now),
};

/**
 * Updates of connected bots: the connection's secret checked in constant time, the update turned into
 * `message.received` for the connection's owner (known here, from the gateway's own connections: no
 * call to the api) and stored in JetStream before the answer, so a 200 means it is kept. The event
 * id comes from the update, so a repeated update is stored once.
 */
@Injectable()
export class BotInboundService {
  private readonly logger = new Logger('BotInbound');

  constructor(
    private readonly connections: ConnectionsRepository,
    private readonly publisher: EventPublisher,
    private readonly channels: BotChannels,
    private readonly credentials: CredentialsBox,
    private readonly clock: Clock,
  ) {}

  async receive(
    channel: BotChannel,
    connectionId: string,
    secretHeader: string,
    secret: string | undefined,
    update: unknown,
  ): Promise<{ events: number }> {
    const connection = isUuid(connectionId) ? await this.connections.findForCallback(connectionId.toLowerCase()) : null;
    if (
      !connection ||
      connection.channel !== channel ||
      connection.state === 'disconnected' ||
      !connection.inboundSecretHash ||
      typeof secret !== 'string' ||
      !constantTimeEqual(hashToken(secret), connection.inboundSecretHash)
    ) {
      updates().inc({ channel, outcome: 'bad_secret' });
      throw new InvalidBotSecretProblem(secretHeader);
    }
    const event = NORMALIZE[channel](update, connection.id, this.clock.now());
    if (!event) {
      updates().inc({ channel, outcome: 'ignored' });
      return { events: 0 };
    }
    event.user_id = connection.userId;
    try {
      await this.publisher.publish(event as unknown as EventEnvelope);
    } catch (err) {
      updates().inc({ channel, outcome: 'unavailable' });
      this.logger.error({ err: String(err), connectionId: connection.id }, 'could not store a bot update');
      throw new ServiceUnavailableProblem('The update could not be stored; retry later.');
    }
    updates().inc({ channel, outcome: 'stored' });
    this.acknowledge(channel, connection, update);
    return { events: 1 };
  }

  /** Answers a button press after the update is kept, without holding up the channel's callback. */
  private acknowledge(channel: BotChannel, connection: CallbackConnection, update: unknown): void {
    if (!connection.credential) return;
    let token: string;
    try {
      token = this.credentials.box.open(connection.credential);
    } catch {
      return;
    }
    this.channels
      .of(channel)
      .acknowledge(token, update)
      .catch((err: unknown) =>
        this.logger.warn({ err: String(err), connectionId: connection.id }, 'could not answer a button press'),
      );
  }
}
