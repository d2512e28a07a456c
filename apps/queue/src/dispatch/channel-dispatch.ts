import { Logger } from '@nestjs/common';
import { ChannelConnector, SendFailure, sendTimeoutOf } from '@app/channels';
import { Channel, DEAD_LETTERED, EventEnvelope, isChannel, OutboundMessage, Priority } from '@app/contracts';
import {
  backoffDelay,
  BackoffOptions,
  currentTraceparent,
  DeliveryMeta,
  DeliveryState,
  DeliveryStateConflictError,
  DeliveryStateEntry,
  inSpan,
  isDelivered,
  settle,
  Settlement,
  SpanKind,
} from '@app/messaging';
import { messageFailedEvent, messageSentEvent } from './dispatch-events';
import { DeliveryOutcome, queueMessages, queuePacedWait, queueSendDuration } from './dispatch.metrics';
import { PacingAbortedError, SendPacer } from './send-pacer';

/** The part of a pulled message the delivery decisions read. */
export interface DeliveryItem {
  readonly meta: DeliveryMeta;
  json<T>(): T;
  /** While it waits for its sender's or recipient's slot, the message leaves its lane's allowance... */
  stepAside?(): void;
  /** ...and takes it up again for the channel call. */
  stepBack?(): void;
}

/**
 * Deliveries of a message that may end with it going back to the stream to wait for its sender's
 * turn (admit). Later ones wait in hand, so that waiting never spends the deliveries a message has
 * for the channel's refusals (the consumers' max_deliver, 10: at least 7 stay for the channel).
 */
export const PACING_DEFERRALS = 3;

/** Messages being admitted (admit) outside their lane's allowance at once, per channel. */
const MAX_ADMITTING = 2000;

/** The delivery-state bucket as the decisions use it (DeliveryStateStore in production). */
export interface DeliveryStates {
  read(messageId: string): Promise<DeliveryStateEntry>;
  claim(messageId: string, revision: number, state: DeliveryState): Promise<number>;
  write(messageId: string, state: DeliveryState): Promise<number>;
  /** Tracing on: keeps the channel call's trace context for the provider's callbacks. */
  recordTrace?(messageId: string, traceparent: string): Promise<void>;
}

/** Time as the decisions see it: injected so that specs run without waiting. */
export interface DeliveryClock {
  now(): number;
  /** Resolves at `at` (unix ms); rejects with PacingAbortedError when `signal` aborts. */
  sleepUntil(at: number, signal?: AbortSignal): Promise<void>;
}

export interface ChannelDeliveryOptions {
  backoff: BackoffOptions;
  /** Extra wait for a provider callback before an uncertain send is repeated. */
  uncertainGraceMs: number;
  /** Consecutive channel failures after which the whole channel pauses. */
  failureThreshold: number;
}

export interface ChannelDispatchDeps {
  channel: Channel;
  connector: ChannelConnector;
  pacer: SendPacer;
  store: DeliveryStates;
  publish: (event: EventEnvelope) => Promise<unknown>;
  clock: DeliveryClock;
  options: ChannelDeliveryOptions;
  /** The stream of the marketing lane (a message's lane when its body does not say). */
  marketingStream: string;
  /** The consumer's max_deliver for a stream (0: unlimited): the last delivery must end the message. */
  maxDeliver: (stream: string) => number;
  /** Aborted when the worker stops: every wait ends. */
  signal: AbortSignal;
}

const POLL_MS = 200;

/**
 * What happens to one outbound message, whatever the channel: earlier attempts first (crash-safe
 * resume from the delivery state), then pacing, a claim, the connector call and a settlement chosen
 * from the connector's own classification of a refusal (final, or whom it concerns: this message,
 * the recipient, the sender, the channel; and whether the outcome is unknown).
 */
export class ChannelDispatch {
  private readonly logger: Logger;
  private consecutiveFailures = 0;
  private backedOffUntil = 0;
  private admitting = 0;
  private lastError?: { at: number; message: string };

  constructor(private readonly deps: ChannelDispatchDeps) {
    this.logger = new Logger(`ChannelDispatch:${deps.channel}`);
  }

  /** End of the whole channel's pause after repeated channel failures (0: none). */
  get channelBackedOffUntil(): number {
    return this.backedOffUntil;
  }

  recentError(withinMs = 30_000): string | undefined {
    const e = this.lastError;
    return e && this.deps.clock.now() - e.at < withinMs ? e.message : undefined;
  }

  noteError(err: unknown): void {
    this.lastError = { at: this.deps.clock.now(), message: err instanceof Error ? err.message : String(err) };
  }

  async deliver(item: DeliveryItem): Promise<Settlement> {
    const lane: Priority = item.meta.stream === this.deps.marketingStream ? 'marketing' : 'service';
    let msg: OutboundMessage;
    try {
      msg = item.json<OutboundMessage>();
    } catch {
      this.count(lane, 'invalid');
      return settle.dead('the outbound message is not valid JSON');
    }
    const problem = describeInvalid(msg, this.deps.channel);
    if (problem) {
      this.count(lane, 'invalid');
      const reason = `invalid outbound message: ${problem}`;
      return problem === 'no id' ? settle.dead(reason) : this.giveUp(msg, reason);
    }
    const priority: Priority = msg.priority === 'marketing' ? 'marketing' : lane;
    try {
      return await this.deliverMessage(item, msg, priority);
    } catch (err) {
      if (err instanceof PacingAbortedError) return settle.retry('the worker is stopping', 0);
      this.noteError(err);
      this.logger.warn({ err, message_id: msg.id, channel: this.deps.channel }, 'delivery attempt failed');
      if (!this.isLastDelivery(item)) throw err; // the runner retries with backoff
      return this.giveUpAfterError(msg, priority, err);
    }
  }

  private isLastDelivery(item: DeliveryItem): boolean {
    const max = this.deps.maxDeliver(item.meta.stream);
    return max > 0 && item.meta.deliveryCount >= max;
  }

  private count(priority: Priority, outcome: DeliveryOutcome): void {
    queueMessages().labels(this.deps.channel, priority, outcome).inc();
  }

  /** The last delivery ended in an unexpected error: say so with message.failed, unless it was sent. */
  private async giveUpAfterError(msg: OutboundMessage, priority: Priority, err: unknown): Promise<Settlement> {
    const reason = err instanceof Error ? err.message : String(err);
    const known = await this.deps.store.read(msg.id).catch(() => undefined);
    if (known && isDelivered(known.state)) return settle.retry(reason); // exhausted: dead-lettered; the state keeps the truth
    this.count(priority, 'failed');
    return this.giveUp(msg, `delivery_error: ${reason}`);
  }

  /**
   * Gives up on a message for good: it ends FAILED `dead_lettered` (message.failed, on which the
   * api releases its hold), and the runner keeps a copy without content in the dead letter stream
   * and removes the work item with its content from the outbound stream.
   */
  private async giveUp(msg: OutboundMessage, reason: string): Promise<Settlement> {
    await this.deps.publish(
      messageFailedEvent(msg, { code: DEAD_LETTERED, title: reason.slice(0, 200) }, this.deps.clock.now()),
    );
    return settle.dead(reason);
  }

  private async deliverMessage(item: DeliveryItem, msg: OutboundMessage, priority: Priority): Promise<Settlement> {
    // 0. Its sender's turn: hold it in hand, or back to the stream until shortly before its slot.
    // Deciding is not work either: the runner pulls the next messages meanwhile (a backlog is
    // looked through at the pace of the server, not of one pull at a time), up to a bound.
    const aside = this.admitting < MAX_ADMITTING;
    if (aside) item.stepAside?.();
    this.admitting++;
    let admission;
    try {
      admission = await this.deps.pacer.admit(msg.sender.connection_id, priority, {
        mayDefer: item.meta.deliveryCount <= PACING_DEFERRALS && !this.isLastDelivery(item),
        firstDelivery: item.meta.deliveryCount === 1,
      });
    } finally {
      this.admitting--;
      if (aside) item.stepBack?.();
    }
    if (!admission.held) {
      this.count(priority, 'deferred');
      return settle.putBack("waiting for the sender's turn", admission.deferMs);
    }
    try {
      return await this.deliverHeld(item, msg, priority);
    } finally {
      admission.release();
    }
  }

  private async deliverHeld(item: DeliveryItem, msg: OutboundMessage, priority: Priority): Promise<Settlement> {
    const { store, clock, connector, signal } = this.deps;

    // 1. What happened to this message before (a redelivery after a crash or a timeout)? On a first
    // delivery nothing can have: the claim's compare-and-set below catches the impossible otherwise.
    let entry: DeliveryStateEntry =
      item.meta.deliveryCount > 1 ? await store.read(msg.id) : { state: null, revision: 0 };
    if (entry.state?.status === 'sending') entry = await this.awaitUncertain(msg, entry, entry.state.since);
    const earlier = entry.state;
    if (isDelivered(earlier)) return this.finishSent(msg, priority, earlier.providerMessageId, 'resumed');
    if (earlier?.status === 'withdrawn') return this.dropWithdrawn(priority);
    if (earlier?.status === 'failed') {
      await this.deps.publish(
        messageFailedEvent(msg, { code: earlier.code, title: earlier.title }, this.deps.clock.now()),
      );
      this.count(priority, 'failed');
      return settle.ack();
    }

    // 2. Pace: the channel's backoff, then the sender's rate (service lane first) and the recipient's interval.
    await clock.sleepUntil(this.backedOffUntil, signal);
    // Waiting for a slot is not work: the lane's allowance goes to the messages behind it meanwhile.
    item.stepAside?.();
    let lease;
    try {
      lease = await this.deps.pacer.acquire(msg.sender.connection_id, msg.recipient, signal, priority);
    } finally {
      item.stepBack?.();
    }
    queuePacedWait()
      .labels(this.deps.channel)
      .observe(lease.waitedMs / 1000);

    let result;
    try {
      // 3. Claim: from here on a crash leaves `sending`, and a redelivery knows the outcome is unknown.
      try {
        await store.claim(msg.id, entry.revision, { status: 'sending', since: clock.now() });
      } catch (err) {
        if (!(err instanceof DeliveryStateConflictError)) throw err;
        const now = await store.read(msg.id);
        if (isDelivered(now.state)) return this.finishSent(msg, priority, now.state.providerMessageId, 'resumed');
        if (now.state?.status === 'withdrawn') return this.dropWithdrawn(priority);
        // Another worker holds the same message (ack timer ran out): let the state settle first.
        this.count(priority, 'retry');
        return settle.retry('another delivery attempt is under way', sendTimeoutOf(connector, msg));
      }
      // 4. The channel call.
      const started = clock.now();
      try {
        result = await this.channelCall(msg);
      } finally {
        queueSendDuration()
          .labels(this.deps.channel)
          .observe((clock.now() - started) / 1000);
      }
    } finally {
      // The recipient's interval counts from here: the channel has the message (or refused it).
      lease.done();
    }

    if (result.ok) {
      this.consecutiveFailures = 0;
      this.backedOffUntil = 0;
      await store.write(msg.id, { status: 'sent', providerMessageId: result.provider_message_id });
      return this.finishSent(msg, priority, result.provider_message_id, 'sent');
    }
    return this.settleFailure(item, msg, priority, result);
  }

  /**
   * The api withdrew the message (it failed it and released its hold: it waited too long) before
   * any channel call: it is acked unsent, with no event, since the api already told its subscribers.
   */
  private dropWithdrawn(priority: Priority): Settlement {
    this.count(priority, 'withdrawn');
    return settle.ack();
  }

  /**
   * The channel call, in a client span of the message's trace. Its trace context is stored first
   * (tracing on), so a callback that arrives before the call returns finds it.
   */
  private channelCall(msg: OutboundMessage) {
    const { store, connector, channel } = this.deps;
    const attributes = { 'app.channel': channel, 'messaging.message.id': msg.id };
    return inSpan(`${channel} send`, { kind: SpanKind.CLIENT, attributes }, async (span) => {
      const traceparent = currentTraceparent();
      if (traceparent && store.recordTrace) {
        await store.recordTrace(msg.id, traceparent).catch((err: unknown) => {
          this.logger.debug({ err: String(err), id: msg.id }, 'trace context not stored');
        });
      }
      const result = await connector.send(msg);
      if (!result.ok) span?.setAttribute('error.type', result.code);
      return result;
    });
  }

  /** Settles a refusal from the connector's classification alone. */
  private async settleFailure(
    item: DeliveryItem,
    msg: OutboundMessage,
    priority: Priority,
    result: SendFailure,
  ): Promise<Settlement> {
    const { store, options } = this.deps;
    const reason = `${result.code}: ${result.title}`;
    const last = this.isLastDelivery(item);
    if (!result.retryable || last) {
      this.count(priority, 'failed');
      this.logger.warn({ message_id: msg.id, channel: this.deps.channel, code: result.code, last }, 'message failed');
      if (!result.retryable) {
        await store.write(msg.id, { status: 'failed', code: result.code, title: result.title });
        await this.deps.publish(
          messageFailedEvent(msg, { code: result.code, title: result.title }, this.deps.clock.now()),
        );
        return settle.ack();
      }
      // An exhausted retryable refusal is dead-lettered.
      const exhausted = `exhausted ${item.meta.deliveryCount} deliveries: ${reason}`;
      await store.write(msg.id, { status: 'failed', code: DEAD_LETTERED, title: exhausted.slice(0, 200) });
      return this.giveUp(msg, exhausted);
    }
    // A call that may have been taken leaves `sending`, so the retry looks for a callback first.
    if (!result.outcomeUnknown) await store.write(msg.id, { status: 'rejected', code: result.code });
    const backoff = backoffDelay(item.meta.deliveryCount, options.backoff);
    if (result.scope === 'sender') {
      // The channel asked this sender to slow down: pause it (on every replica), not the channel.
      await this.deps.pacer.pause(msg.sender.connection_id, this.deps.clock.now() + (result.retryAfterMs ?? backoff));
    } else if (result.scope === 'channel') {
      this.noteChannelFailure();
    }
    this.count(priority, 'retry');
    return settle.retry(reason, result.retryAfterMs !== undefined ? Math.max(result.retryAfterMs, backoff) : undefined);
  }

  /** Repeated channel failures pause the whole channel, longer each time, until a send succeeds. */
  private noteChannelFailure(): void {
    const { failureThreshold, backoff } = this.deps.options;
    this.consecutiveFailures++;
    if (this.consecutiveFailures < failureThreshold) return;
    const until = this.deps.clock.now() + backoffDelay(this.consecutiveFailures - failureThreshold + 1, backoff);
    if (until > this.backedOffUntil) {
      this.backedOffUntil = until;
      this.logger.warn(
        { channel: this.deps.channel, until: new Date(until).toISOString(), failures: this.consecutiveFailures },
        'channel backed off',
      );
    }
  }

  /**
   * A previous attempt started a channel call and never recorded its outcome (its worker died, or
   * the call timed out). The channel may have taken the message: wait until that call must have
   * ended plus the grace period, watching for the state to become sent or observed. The grace
   * counts from now when the call ended long ago: a worker that comes back to the message late
   * (after an outage of NATS, during which the channel's callback could not be stored either)
   * still gives that callback, retried by the channel, the grace to arrive.
   *
   * Another copy of the message can be in hand meanwhile (the server redelivered it while this one
   * waited: its ack timer could not be kept alive through a NATS outage) and claim it anew: a newer
   * `sending` is a newer call that may be under way, so the wait starts again from it. Returning a
   * `sending` entry means its call must have ended, with no callback, and the claim may take it over.
   */
  private async awaitUncertain(
    msg: OutboundMessage,
    entry: DeliveryStateEntry,
    since: number,
  ): Promise<DeliveryStateEntry> {
    const { store, clock, connector, options, signal } = this.deps;
    const messageId = msg.id;
    const deadlineFor = (callSince: number) =>
      Math.max(callSince + sendTimeoutOf(connector, msg), clock.now()) + options.uncertainGraceMs;
    let deadline = deadlineFor(since);
    let current = entry;
    while (!isDelivered(current.state) && clock.now() < deadline) {
      await clock.sleepUntil(Math.min(deadline, clock.now() + POLL_MS), signal);
      current = await store.read(messageId);
      if (current.state?.status !== 'sending' && !isDelivered(current.state)) break;
      if (current.state?.status === 'sending' && current.state.since !== since) {
        since = current.state.since;
        deadline = deadlineFor(since);
      }
    }
    return current;
  }

  private async finishSent(
    msg: OutboundMessage,
    priority: Priority,
    providerMessageId: string,
    outcome: 'sent' | 'resumed',
  ): Promise<Settlement> {
    // Same event id on every attempt: a republish after a crash is dropped as a duplicate.
    await this.deps.publish(messageSentEvent(msg, providerMessageId, this.deps.clock.now()));
    this.count(priority, outcome);
    return settle.ack();
  }
}

/** Why a work item cannot be delivered at all, or null when it has what the worker needs. */
function describeInvalid(msg: unknown, channel: Channel): string | null {
  if (!msg || typeof msg !== 'object') return 'not an object';
  const m = msg as Partial<OutboundMessage>;
  if (typeof m.id !== 'string' || !/^[-_=A-Za-z0-9]{1,200}$/.test(m.id)) return 'no id';
  if (!isChannel(m.channel) || m.channel !== channel) return `channel "${String(m.channel)}" on the ${channel} stream`;
  if (!m.sender || typeof m.sender.connection_id !== 'string' || !m.sender.connection_id) return 'no sender';
  if (typeof m.recipient !== 'string' || !m.recipient) return 'no recipient';
  if (!m.content || typeof m.content !== 'object') return 'no content';
  return null;
}
