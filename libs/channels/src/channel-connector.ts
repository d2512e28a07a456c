import type { Readable } from 'node:stream';
import { Channel, OutboundMessage, SendMediaType } from '@app/contracts';

/**
 * Whom a refusal concerns, which decides what waits before the next try:
 * - `message`: this message only (also every final refusal: nothing else is affected);
 * - `recipient`: too many messages to this recipient; only this message waits, the sender goes on;
 * - `sender`: the channel asked this sender to slow down; that sender pauses for `retryAfterMs`;
 * - `channel`: the channel itself is in trouble (5xx, unreachable, timeouts); repeated, the whole
 *   channel backs off.
 */
export type FailureScope = 'message' | 'recipient' | 'sender' | 'channel';

export type SendFailure = {
  ok: false;
  /** False: a retry cannot help (the message fails for good). */
  retryable: boolean;
  scope: FailureScope;
  /** The call may have reached the channel (a timeout, a connection cut mid-request): the message may be sent. */
  outcomeUnknown?: boolean;
  code: string;
  title: string;
  retryAfterMs?: number;
};

/**
 * What a send came to. A refusal is data, not an exception: the connector classifies it (final or
 * not, whom it concerns, whether the message may have gone out) and the delivery worker settles it
 * from that classification alone.
 */
export type SendResult = { ok: true; provider_message_id: string } | SendFailure;

/** Limits of one channel's senders, owned by the channel's connector (documented provider limits or configuration). */
export interface PacingLimits {
  /** Messages per second per sender. */
  ratePerSender: number;
  /** Messages a sender may send back to back before the rate applies (1: evenly spaced). */
  burst: number;
  /** Least milliseconds between two messages from one sender to one recipient; 0 disables. */
  recipientIntervalMs: number;
}

/** The one interface every channel implements. `send` throws only for programming errors. */
export interface ChannelConnector {
  readonly channel: Channel;
  /** How fast one sender of this channel may send. */
  readonly pacing: PacingLimits;
  /** Longest a `send` can take (its own timeout): after that a call has ended one way or another. */
  readonly sendTimeoutMs: number;
  /** Longest the send of this message can take, where it differs from `sendTimeoutMs`. */
  sendTimeoutOf?(msg: OutboundMessage): number;
  send(msg: OutboundMessage): Promise<SendResult>;
}

/** Longest the send of `msg` through `connector` can take. */
export function sendTimeoutOf(connector: ChannelConnector, msg: OutboundMessage): number {
  return connector.sendTimeoutOf?.(msg) ?? connector.sendTimeoutMs;
}

/** A media library file to upload to a channel, read from the media store as it is sent. */
export interface MediaUploadSource {
  body: Readable;
  type: SendMediaType;
  mimeType: string;
  size: number;
  fileName: string | null;
}

/**
 * What uploading a media library file came to: the channel's handle of it (and, for a channel
 * whose upload is a send, that send's result), or the refusal, classified as a send's.
 */
export type MediaUploadResult =
  | {
      ok: true;
      handle: string;
      /** Unix seconds; null: the handle does not expire. */
      expiresAt: number | null;
      /** The upload was the message's own send (Telegram): its outcome. */
      sent?: SendResult;
    }
  | SendFailure;

/**
 * A connector that sends media library files (docs/media.md) by a handle the channel gives for an
 * upload: uploaded once per sender connection, the handle kept by the gateway and reused.
 */
export interface MediaUploader {
  /** Uploads the file for the message's sender; a channel without a separate upload sends the message with it. */
  uploadMedia(msg: OutboundMessage, file: MediaUploadSource): Promise<MediaUploadResult>;
}

/** Whether a connector uploads media library files. */
export function uploadsMedia(connector: ChannelConnector): connector is ChannelConnector & MediaUploader {
  return typeof (connector as Partial<MediaUploader>).uploadMedia === 'function';
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
