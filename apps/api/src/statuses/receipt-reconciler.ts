import { Injectable } from '@nestjs/common';
import { EventEnvelope, MessageStatusData, newEventId, Topology } from '@app/contracts';
import { PeriodicService, Clock } from '@app/server';
import { BillingService } from '../billing/billing.service';
import { ApiConfig } from '../config';
import { MessageEntity } from '../messages/message.entity';
import { MessagesRepository } from '../messages/messages.repository';
import { Outbox, OutboxEntry, OutboxRepository } from '../outbox';
import { FailoverService, SendWithdrawal } from '../sending';

export const NO_RECEIPT = 'no_receipt';
const BATCH = 100;
/** A failed event that could not be stored this quickly is left to the outbox relay. */
const RECONCILER_PUBLISH_DEADLINE_MS = 2000;

export interface SettlementPass {
  /** Outbox rows published by the relay (left behind by a crash or a failed publish). */
  relayed: number;
  /** Messages failed as `no_receipt`, their holds released. */
  expired: number;
}

/**
 * Every accepted message settles: the relay publishes outbox rows the request path left behind,
 * and a message with no final status RECEIPT_TIMEOUT_MINUTES after its acceptance ends FAILED
 * `no_receipt` (as the channel fails a message past its time to live), its hold released and
 * `message.failed` published through the outbox. Every replica may run it: rows are claimed with
 * SKIP LOCKED and each step happens once.
 */
@Injectable()
export class ReceiptReconciler extends PeriodicService<SettlementPass> {
  constructor(
    private readonly config: ApiConfig,
    private readonly messages: MessagesRepository,
    private readonly billing: BillingService,
    private readonly outbox: Outbox,
    private readonly outboxRows: OutboxRepository,
    private readonly topology: Topology,
    private readonly clock: Clock,
    private readonly failover: FailoverService,
    private readonly withdrawal: SendWithdrawal,
  ) {
    super('settlement', config.SETTLEMENT_INTERVAL_MS);
  }

  /** One pass (or the one under way). */
  settle(): Promise<SettlementPass> {
    return this.runNow();
  }

  protected async pass(): Promise<SettlementPass> {
    const relayed = await this.outbox.relay(this.config.OUTBOX_RELAY_AFTER_MS);
    const expired =
      (await this.expire(this.config.RECEIPT_TIMEOUT_MINUTES * 60, false)) +
      (await this.expire(this.config.FAILOVER_RECEIPT_SECONDS, true));
    const resumed = await this.failover.resumeWaiting(this.config.OUTBOX_RELAY_AFTER_MS);
    if (relayed || expired || resumed) this.logger.log({ relayed, expired, resumed }, 'settlement');
    return { relayed, expired };
  }

  /** Fails what has no final status `seconds` after its acceptance (only failover attempts with a next channel, or all). */
  private async expire(seconds: number, onlyWithNextChannel: boolean): Promise<number> {
    const before = new Date(this.clock.nowMs() - seconds * 1000);
    let total = 0;
    for (;;) {
      const { claimed, events, expired } = await this.messages.transaction(async (em) => {
        const stale = await this.messages.claimUnsettled(em, before, BATCH, onlyWithNextChannel);
        const failed: OutboxEntry[] = [];
        const expired: MessageEntity[] = [];
        for (const message of stale) {
          // Never handed to the channel as far as this api knows: the queue may still hold it, so
          // it is withdrawn there first, or left alone when the queue's channel call came first.
          if (message.status === 'QUEUED' && !(await this.withdrawn(message))) continue;
          // Not yet published: it never will be now.
          await this.outboxRows.withdraw(em, message.id);
          const reason = `No final status within ${seconds} seconds of acceptance`;
          // The balance before the usage row, as every statement locks them; the claimed row
          // cannot move meanwhile, so the failure always applies.
          await this.billing.release(message.id, em);
          if (!(await this.messages.advance(message.id, 'FAILED', { code: NO_RECEIPT, reason }, em))) {
            throw new Error(`claimed message ${message.id} could not be failed`);
          }
          await this.messages.recordEvent(message.id, 'FAILED', this.clock.nowSeconds(), em);
          failed.push(this.failedEvent(message, reason));
          expired.push(message);
        }
        await this.outboxRows.insert(em, failed);
        return { claimed: stale.length, events: failed, expired };
      });
      // A message sent over a failover route moves on to its next channel.
      await this.failover.afterFailures(expired.map((message) => ({ message, code: NO_RECEIPT })));
      // Published now; one that fails stays in the outbox for the relay.
      await Promise.all(
        events.map((e) => this.outbox.publish(e, RECONCILER_PUBLISH_DEADLINE_MS).catch(() => undefined)),
      );
      total += events.length;
      // A full batch of messages the queue had in hand (none expired) ends the pass too: the next
      // pass takes them up again.
      if (claimed < BATCH || expired.length === 0) return total;
    }
  }

  /** Whether the queue will never send the message now (see SendWithdrawal); false when unknown. */
  private async withdrawn(message: MessageEntity): Promise<boolean> {
    try {
      return await this.withdrawal.withdraw(message.id, NO_RECEIPT);
    } catch (err) {
      this.logger.warn({ err, messageId: message.id }, 'the queue could not be told to withdraw it: tried again later');
      return false;
    }
  }

  private failedEvent(message: MessageEntity, reason: string): OutboxEntry {
    const now = this.clock.nowSeconds();
    const event: EventEnvelope<MessageStatusData> = {
      id: newEventId(),
      type: 'message.failed',
      created_at: now,
      channel: message.channel,
      app_id: message.appId,
      user_id: message.userId,
      data: {
        message_id: message.id,
        recipient: message.recipient,
        status: 'FAILED',
        error: { code: NO_RECEIPT, title: reason, retryable: false },
        ...(message.campaignId ? { campaign_id: message.campaignId } : {}),
        timestamp: now,
      },
    };
    return { id: event.id, subject: this.topology.eventSubject('message.failed'), payload: event };
  }
}
