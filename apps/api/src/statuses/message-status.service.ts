import { GroupCommit } from '@app/database';
import { Clock } from '@app/server';
import { inSpan } from '@app/messaging';
import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import {
  ChannelPricing,
  EventEnvelope,
  EventType,
  MessageStatusData,
  parseChannelPricing,
  chargedStatusOf,
  statusRank,
  STATUS_OF_EVENT,
} from '@app/contracts';
import { BillingService, CaptureRequest, fromUnits } from '../billing/billing.service';
import type { Charge } from '../billing/charges';
import { EventHandlersRegistry } from '../events';
import { CallbackOwnership } from './callback-ownership';
import { FailoverService } from '../sending';
import { MessageEntity } from '../messages/message.entity';
import { MessagesRepository, StatusStep, stepKey } from '../messages/messages.repository';
import { observeMessageStatus } from './message.metrics';

/**
 * A status callback that names only the channel's id may overtake the `message.sent` that tells us
 * that id: it is retried (the handler throws) for this long, then dropped as not ours.
 */
export const UNMATCHED_RETRY_SECONDS = 120;

/** Status events applied together in one transaction at most. */
const GROUP_MAX = 500;

/** A channel's timestamp (unix seconds) when it is one; a value no clock gives is not. */
function plausibleSeconds(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value < 2 ** 40
    ? Math.floor(value)
    : null;
}

/** An event's data as a status; an event without an object there names no message. */
function dataOf(event: EventEnvelope): Partial<MessageStatusData> {
  return event.data && typeof event.data === 'object' ? (event.data as Partial<MessageStatusData>) : {};
}

/** A status event matched to its message, ready to apply. */
interface Matched extends StatusStep {
  /** The event's place in its group. */
  index: number;
  message: MessageEntity;
  occurredAt: number;
  /** What the channel says it billed, when the callback says. */
  pricing: ChannelPricing | null;
}

/**
 * Follows each message through the channel's events: the timeline (each status once), the status
 * (forward only, whatever order callbacks arrive in) and the money (captured when delivered or
 * read, released when failed). Every step is idempotent, so a redelivered event changes nothing.
 * Events handled at the same time are applied together (group commit): one transaction, one lock
 * of each message and of each user's balance, however many events the group holds.
 */
@Injectable()
export class MessageStatusService implements OnModuleInit {
  private readonly logger = new Logger(MessageStatusService.name);
  private readonly groups = new GroupCommit<EventEnvelope, Error | null>(
    (_, events) => this.applyGroup(events),
    GROUP_MAX,
  );

  constructor(
    private readonly messages: MessagesRepository,
    private readonly billing: BillingService,
    private readonly registry: EventHandlersRegistry,
    private readonly ownership: CallbackOwnership,
    private readonly clock: Clock,
    private readonly failover: FailoverService,
  ) {}

  onModuleInit(): void {
    for (const type of Object.keys(STATUS_OF_EVENT) as EventType[]) {
      this.registry.on(type, (event) => this.apply(event));
    }
  }

  /** Resolves once the event is applied (or dropped as not ours); throws to have it retried. */
  async apply(event: EventEnvelope): Promise<void> {
    const status = STATUS_OF_EVENT[event.type];
    if (!status) return;
    // One span per event, in the trace its message headers named, though the group commits many.
    const messageId = dataOf(event).message_id;
    const attributes = { 'app.message.status': status, ...(messageId ? { 'messaging.message.id': messageId } : {}) };
    await inSpan('message status update', { attributes }, async () => {
      const failure = await this.groups.submit('status', event);
      if (failure) throw failure;
    });
  }

  /** Applies a group of status events in their order; per event, null or the error to retry it with. */
  private async applyGroup(events: EventEnvelope[]): Promise<(Error | null)[]> {
    const found = await this.find(events.map(dataOf));
    const outcomes: (Error | null)[] = [];
    const matched: Matched[] = [];
    const owned = await this.ownership.mayUpdateAll(events.map((e, i) => ({ event: e, message: found[i] })));
    events.forEach((event, i) => {
      outcomes.push(null);
      const data = dataOf(event);
      const message = found[i];
      if (!message) {
        const age = this.clock.nowSeconds() - event.created_at;
        if (!data.message_id && data.provider_message_id && age < UNMATCHED_RETRY_SECONDS) {
          outcomes[i] = new Error(`no message yet for channel id ${data.provider_message_id}; will retry`);
          return;
        }
        this.logger.debug({ eventId: event.id, type: event.type }, 'status event for an unknown message: ignored');
        return;
      }
      if (!owned[i]) {
        this.logger.warn(
          {
            eventId: event.id,
            type: event.type,
            messageId: message.id,
            appId: message.appId,
            eventAppId: event.app_id,
          },
          'status callback from a connection that does not own the message: dropped',
        );
        return;
      }
      const status = STATUS_OF_EVENT[event.type]!;
      matched.push({
        index: i,
        message,
        messageId: message.id,
        status,
        occurredAt: plausibleSeconds(data.timestamp) ?? event.created_at,
        providerMessageId: status === 'SENT' && data.provider_message_id ? data.provider_message_id : null,
        failure: status === 'FAILED' ? { code: data.error?.code ?? null, reason: data.error?.title ?? null } : null,
        pricing: parseChannelPricing(data.pricing),
      });
    });
    if (matched.length === 0) return outcomes;
    try {
      await this.commit(matched);
    } catch (err) {
      if (matched.length === 1) throw err;
      // One event the database refuses must not hold back the others: each goes alone.
      for (const step of matched) {
        await this.commit([step]).catch((e: unknown) => {
          outcomes[step.index] = e instanceof Error ? e : new Error(String(e));
        });
      }
    }
    return outcomes;
  }

  /**
   * One transaction in the order every writer of these rows keeps (messages, then balances, then
   * usage rows): the timeline steps, the statuses, and the holds. A read receipt implies delivery:
   * either one captures the charge (once), at what its callback says the channel billed (or the
   * price assumed at send when it says nothing); a channel without receipts ends at SENT, so it is
   * charged there; a failure releases the hold. The first of these a message meets settles it.
   */
  private async commit(steps: Matched[]): Promise<void> {
    const capture: CaptureRequest[] = [];
    const release: string[] = [];
    const settling = new Set<string>();
    for (const s of steps) {
      if (settling.has(s.messageId)) continue;
      // Charged once it reaches the status its channel is charged at (chargedStatusOf), or passes it.
      if (s.status !== 'FAILED' && statusRank(s.status) >= statusRank(chargedStatusOf(s.message.channel))) {
        capture.push({ messageId: s.messageId, pricing: s.pricing });
        settling.add(s.messageId);
      } else if (s.status === 'FAILED') {
        release.push(s.messageId);
        settling.add(s.messageId);
      }
    }
    const { recorded, settled } = await this.messages.transactionCommittedByLast(async (em) => {
      const { current, recorded: timeline } = await this.messages.lockAndRecord(em, steps);
      if (capture.length + release.length === 0) {
        await this.messages.advanceMany(em, current, steps, true);
        return { recorded: timeline, settled: { captured: new Map<string, Charge>(), released: new Set<string>() } };
      }
      // The balance as late as its order allows (messages, balances, usage rows): other sends and
      // settlements of the user wait on its row until this commits, so the statuses move first,
      // and their usage counts go with the statement that settles, after the row, which carries
      // the COMMIT.
      const moves = await this.messages.advanceUncounted(em, current, steps);
      const money = await this.billing.settle(em, { capture, release }, moves, true);
      return { recorded: timeline, settled: money };
    });
    const failed: { message: MessageEntity; code: string | null }[] = [];
    for (const s of steps) {
      if (!recorded.delete(stepKey(s))) continue;
      observeMessageStatus(s.message, s.status, this.clock.nowMs(), s.failure?.code);
      if (s.status === 'FAILED') failed.push({ message: s.message, code: s.failure?.code ?? null });
    }
    // A send over a failover route moves on to its next channel, or keeps nothing more to try.
    await this.failover.afterFailures(failed);
    await this.failover.afterCarried([...settled.captured.keys()]);
    for (const [id, c] of settled.captured) {
      this.logger.log(
        {
          messageId: id,
          category: c.category,
          assumedCategory: c.assumedCategory,
          pricingType: c.pricingType,
          charged: fromUnits(c.charged),
          ...(c.uncharged > 0n ? { uncharged: fromUnits(c.uncharged) } : {}),
        },
        'charge captured',
      );
    }
    for (const id of settled.released) this.logger.log({ messageId: id }, 'hold released');
  }

  /** Each event's message: by our id when the channel echoed it, else by the channel's id. */
  private async find(data: Partial<MessageStatusData>[]): Promise<(MessageEntity | null)[]> {
    // An id PostgreSQL cannot hold (a NUL byte) names no message of ours; a query would only fail.
    const storable = (id: unknown): id is string => typeof id === 'string' && id.length > 0 && !id.includes('\u0000');
    const ourId = (d: Partial<MessageStatusData>) =>
      storable(d.message_id) && d.message_id.length <= 64 ? d.message_id : null;
    const byId = await this.messages.findByIds(data.flatMap((d) => ourId(d) ?? []));
    const channelId = (d: Partial<MessageStatusData>) => {
      const id = ourId(d);
      return (id === null || !byId.has(id)) && storable(d.provider_message_id) ? d.provider_message_id : null;
    };
    const byChannelId = await this.messages.findByProviderIds(data.flatMap((d) => channelId(d) ?? []));
    return data.map((d) => {
      const id = ourId(d);
      if (id !== null && byId.has(id)) return byId.get(id)!;
      const channel = channelId(d);
      return (channel !== null && byChannelId.get(channel)) || null;
    });
  }
}
