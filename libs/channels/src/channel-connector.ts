import { Channel, OutboundMessage } from '@app/contracts';

/**
 * What a send came to. A refusal is data, not an exception: the delivery worker decides between
 * ack, nak with backoff and dead letter from `retryable` and `retryAfterMs`.
 */
export type SendResult =
  | { ok: true; provider_message_id: string }
  | { ok: false; retryable: boolean; code: string; title: string; retryAfterMs?: number };

/** The one interface every channel implements. `send` throws only for programming errors. */
export interface ChannelConnector {
  readonly channel: Channel;
  send(msg: OutboundMessage): Promise<SendResult>;
}

/** Raised when a message is routed to a channel nobody configured a connector for. */
export class ChannelNotConfiguredError extends Error {
  constructor(readonly channel: string) {
    super(`no connector is configured for channel "${channel}"`);
    this.name = 'ChannelNotConfiguredError';
  }
}

/** Picks the connector by channel name. */
export class ChannelRegistry {
  private readonly connectors = new Map<Channel, ChannelConnector>();

  constructor(connectors: Iterable<ChannelConnector> = []) {
    for (const c of connectors) this.register(c);
  }

  register(connector: ChannelConnector): this {
    if (this.connectors.has(connector.channel)) {
      throw new Error(`a connector for channel "${connector.channel}" is already registered`);
    }
    this.connectors.set(connector.channel, connector);
    return this;
  }

  has(channel: Channel): boolean {
    return this.connectors.has(channel);
  }

  get(channel: Channel): ChannelConnector {
    const connector = this.connectors.get(channel);
    if (!connector) throw new ChannelNotConfiguredError(channel);
    return connector;
  }

  channels(): Channel[] {
    return [...this.connectors.keys()];
  }

  send(msg: OutboundMessage): Promise<SendResult> {
    return this.get(msg.channel).send(msg);
  }
}
