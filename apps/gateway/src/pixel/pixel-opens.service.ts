import { Injectable, Logger } from '@nestjs/common';
import {
  Channel,
  EventEnvelope,
  GATEWAY_MESSAGES_RPC,
  messageStatusEventId,
  MessageStatusData,
  PixelOpen,
  Topology,
} from '@app/contracts';
import { EventPublisher, NatsClients, publishDurable, RpcClient } from '@app/messaging';
import { Clock, counter } from '@app/server';
import { GatewayConfig } from '../config';
import { PixelTokens } from './pixel-token';

/** The broker has this long to store an open; the pixel was answered long before. */
const OPEN_PUBLISH_TIMEOUT_MS = 5_000;
const READ_TARGET_RPC_TIMEOUT_MS = 5_000;

const opens = () => counter('gateway_pixel_opens_total', 'Tracking pixel requests by outcome', ['outcome']);
const recorded = () => counter('gateway_pixel_reads_total', 'Stored pixel opens by what they changed', ['outcome']);

/**
 * The tracking pixel of a message: its URL, the open (answered at once, stored in the INBOUND
 * stream without waiting) and the recording of the open as the message's one READ, through the
 * same `message.read` event a channel's read receipt produces.
 */
@Injectable()
export class PixelOpensService {
  private readonly logger = new Logger('PixelOpens');
  private readonly base: string;

  constructor(
    config: GatewayConfig,
    private readonly tokens: PixelTokens,
    private readonly clients: NatsClients,
    private readonly topology: Topology,
    private readonly publisher: EventPublisher,
    private readonly rpc: RpcClient,
    private readonly clock: Clock,
  ) {
    this.base = config.GATEWAY_PUBLIC_URL.replace(/\/+$/, '');
  }

  /** The absolute URL of a message's pixel. */
  urlOf(messageId: string): string {
    return `${this.base}/v1/course/pixel/${this.tokens.seal(messageId)}.gif`;
  }

  /**
   * A request of the pixel: a token the gateway made is stored for recording, without waiting for
   * the broker's answer (a failure is logged); any other token records nothing.
   */
  opened(token: string): void {
    const messageId = this.tokens.open(token);
    if (!messageId) {
      opens().inc({ outcome: 'not_ours' });
      return;
    }
    const open: PixelOpen = { message_id: messageId, opened_at: this.clock.nowSeconds() };
    // One id per message: a burst of opens (a mail client fetching twice) is stored once.
    publishDurable(
      this.clients.js,
      this.topology.pixelOpenSubject(),
      open,
      `pixel:${messageId}`,
      {},
      OPEN_PUBLISH_TIMEOUT_MS,
    ).then(
      () => opens().inc({ outcome: 'stored' }),
      (err: unknown) => {
        opens().inc({ outcome: 'store_failed' });
        this.logger.error({ err, messageId }, 'a pixel open could not be stored; it is not recorded');
      },
    );
  }

  /**
   * Records a stored open: the message becomes READ through a `message.read` event stamped with
   * its owner, under the one id of "this message was read", so an open and a read receipt of the
   * same message are one event. A message already READ (or FAILED, or unknown) changes nothing.
   * Throws while the api cannot answer: the open waits in INBOUND and is tried again.
   */
  async record(open: PixelOpen): Promise<void> {
    const target = await this.rpc.call(
      GATEWAY_MESSAGES_RPC.readTarget,
      { id: open.message_id },
      { timeoutMs: READ_TARGET_RPC_TIMEOUT_MS, unavailable: 'The message cannot be looked up right now.' },
    );
    if (!target.found || target.status === 'READ' || target.status === 'FAILED') {
      recorded().inc({ outcome: target.found ? 'unchanged' : 'unknown_message' });
      return;
    }
    const event: EventEnvelope = {
      id: messageStatusEventId(target.message_id, 'READ'),
      type: 'message.read',
      created_at: this.clock.nowSeconds(),
      channel: target.channel as Channel,
      app_id: target.app_id,
      user_id: target.user_id,
      data: {
        message_id: target.message_id,
        recipient: target.recipient,
        status: 'READ',
        provider_message_id: null,
        category: target.category,
        ...(target.campaign_id ? { campaign_id: target.campaign_id } : {}),
        timestamp: open.opened_at,
      } satisfies MessageStatusData,
    };
    await this.publisher.publish(event);
    recorded().inc({ outcome: 'read' });
    this.logger.log({ messageId: target.message_id }, 'pixel open recorded as read');
  }
}
