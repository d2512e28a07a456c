import { Logger } from '@nestjs/common';
import { ChannelConnector, SendResult } from '@app/channels';
import { Channel, EventEnvelope, isChannel, OutboundMessage, Priority, Topology } from '@app/contracts';
import {
  backoffDelay,
  BackoffOptions,
  ConsumerRunner,
  ConsumerSource,
  DeliveryStateConflictError,
  DeliveryStateEntry,
  DeliveryStateStore,
  isDelivered,
  NatsClients,
  PulledMessage,
  settle,
  Settlement,
} from '@app/messaging';
import { nanos } from '@nats-io/nats-core';
import { setMaxListeners } from 'node:events';
import { messageFailedEvent, messageSentEvent } from './delivery-events';
import { DeliveryOutcome, queueMessages, queuePacedWait, queueSendDuration } from './delivery.metrics';
import { PacingAbortedError, SendPacer, sleepUntil } from './send-pacer';

export interface ChannelWorkerOptions {
  /** Messages handled at the same time (the runner's batch). */
  concurrency: number;
  backoff: BackoffOptions;
  /** The connector's own timeout: a call started longer ago than this has ended one way or another. */
  sendTimeoutMs: number;
  /** Extra wait for a provider callback before an uncertain send is repeated. */
  uncertainGraceMs: number;
  /** Consecutive transient failures after which the whole channel pauses. */
  failureThreshold: number;
}

export interface ChannelWorkerDeps {
  channel: Channel;
  connector: ChannelConnector;
  clients: NatsClients;
  topology: Topology;
  publish: (event: EventEnvelope) => Promise<unknown>;
  pacer: SendPacer;
  options: ChannelWorkerOptions;
}

/** What readiness shows about one channel's worker. */
export interface ChannelWorkerStatus {
  state: 'starting' | 'running' | 'backed_off' | 'stopped';
  /** ISO time until which the whole channel is paused after repeated transient failures. */
  backed_off_until?: string;
  /** Senders paused after the channel asked to slow down (429), with the ISO end of the pause. */
  paused_senders?: Record<string, string>;
  in_flight: number;
  last_error?: string;
}

/** Connector answers after which it is unknown whether the channel took the message. */
const UNCERTAIN_CODES = new Set(['timeout', 'network_error']);
/** Network errors raised before any byte reached the channel: nothing can have been sent. */
const NOT_CONNECTED = /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH/;
/** Graph's pair rate limit (one recipient gets too many messages): only that message waits. */
const PAIR_RATE_LIMIT = '131056';

function outcomeUnknown(result: { code: string; title: string }): boolean {
  return UNCERTAIN_CODES.has(result.code) && !NOT_CONNECTED.test(result.title);
}
const POLL_MS = 200;
const STARTUP_RETRY_MS = 2000;

/**
 * Delivers one channel's outbound messages: strict priority (service before marketing) through a
 * ConsumerRunner of its own, pacing per sender and recipient, the connector call, the outcome
 * event, and a delivery state per message so that a redelivery after a crash does not send a
 * message the channel already accepted. Each channel has its own worker, concurrency and backoff,
 * so one channel's trouble never slows another.
 */
export class ChannelWorker {
  private readonly logger: Logger;
  private readonly abort = new AbortController();
  private runner?: ConsumerRunner;
  private store?: DeliveryStateStore;
  private starting?: Promise<void>;
  private stopped = false;
  /** max_deliver of each source stream's consumer (0: unlimited). */
  private readonly maxDeliver = new Map<string, number>();
  private keepAliveMs = 10_000;
  private consecutiveFailures = 0;
  private backedOffUntil = 0;
  private lastError?: { at: number; message: string };

  constructor(private readonly deps: ChannelWorkerDeps) {
    this.logger = new Logger(`ChannelWorker:${deps.channel}`);
    // Every message in hand may wait on the stop signal at once.
    setMaxListeners(0, this.abort.signal);
  }

  get channel(): Channel {
    return this.deps.channel;
  }

  /** Starts in the background: waits for the consumers and the bucket if the setup step has not run yet. */
  start(): void {
    this.starting ??= this.boot();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.abort.abort();
    await this.starting;
    await this.runner?.stop();
  }

  status(): ChannelWorkerStatus {
    const now = Date.now();
    const paused = Object.fromEntries(
      Object.entries(this.deps.pacer.pausedSenders()).map(([s, until]) => [s, new Date(until).toISOString()]),
    );
    const recentError = this.lastError && now - this.lastError.at < 30_000 ? this.lastError.message : undefined;
    return {
      state: this.stopped
        ? 'stopped'
        : !this.runner
          ? 'starting'
          : this.backedOffUntil > now
            ? 'backed_off'
            : 'running',
      ...(this.backedOffUntil > now ? { backed_off_until: new Date(this.backedOffUntil).toISOString() } : {}),
      ...(Object.keys(paused).length ? { paused_senders: paused } : {}),
      in_flight: this.runner?.busy ?? 0,
      ...(recentError ? { last_error: recentError } : {}),
    };
  }

  private sources(): ConsumerSource[] {
    const t = this.deps.topology;
    return (['service', 'marketing'] as Priority[]).map((p) => ({
      stream: t.outboundStream(p),
      consumer: t.outboundConsumer(p, this.channel),
      maxDeliver: 0,
    }));
  }

  private async boot(): Promise<void> {
    const { clients, topology, options } = this.deps;
    while (!this.stopped) {
      try {
        const jsm = await clients.jsm();
        const sources = this.sources();
        let ackWaitMs = Infinity;
        for (const s of sources) {
          // The consumers' own limits, so the worker agrees with whatever the setup step declared.
          const info = await jsm.consumers.info(s.stream, s.consumer);
          s.maxDeliver = info.config.max_deliver ?? -1;
          this.maxDeliver.set(s.stream, s.maxDeliver > 0 ? s.maxDeliver : 0);
          ackWaitMs = Math.min(ackWaitMs, Number(info.config.ack_wait ?? nanos(30_000)) / 1e6);
        }
        this.keepAliveMs = Math.max(100, Math.floor(ackWaitMs / 3));
        this.store = await DeliveryStateStore.open(clients.js, topology);
        if (this.stopped) return;
        this.runner = new ConsumerRunner(clients.nc, clients.js, {
          sources,
          handler: (m) => this.handle(m),
          deadLetterSubject: (s) => topology.deadLetterSubject(s.stream, s.consumer),
          backoff: options.backoff,
          batch: options.concurrency,
          wakeSubjects: [topology.outboundWildcard(this.channel)],
          onError: (err, context) => {
            this.noteError(err);
            this.logger.warn({ err, channel: this.channel, ...context }, 'delivery worker error');
          },
        });
        this.runner.start();
        this.logger.log({ channel: this.channel }, 'delivery worker started');
        return;
      } catch (err) {
        this.noteError(err);
        this.logger.warn({ err, channel: this.channel }, 'delivery worker waiting for its consumers and bucket');
        await sleepUntil(Date.now() + STARTUP_RETRY_MS, Date.now, this.abort.signal).catch(() => undefined);
      }
    }
  }

  private noteError(err: unknown): void {
    this.lastError = { at: Date.now(), message: err instanceof Error ? err.message : String(err) };
  }

  /** Keeps the message's ack timer alive for as long as it is in hand (pacing, grace waits, the call). */
  private async handle(pm: PulledMessage): Promise<Settlement> {
    const keepAlive = setInterval(() => {
      try {
        pm.working();
      } catch {
        // Connection closed: the server redelivers after ack_wait; nothing to do here.
      }
    }, this.keepAliveMs);
    try {
      return await this.deliver(pm);
    } finally {
      clearInterval(keepAlive);
    }
  }

  /** The runner dead-letters after this delivery whatever the handler says: last chance for message.failed. */
  private isLastDelivery(pm: PulledMessage): boolean {
    const max = this.maxDeliver.get(pm.meta.stream) ?? 0;
    return max > 0 && pm.meta.deliveryCount >= max;
  }

  private count(priority: Priority, outcome: DeliveryOutcome): void {
    queueMessages().labels(this.channel, priority, outcome).inc();
  }

  private async deliver(pm: PulledMessage): Promise<Settlement> {
    const streamPriority: Priority =
      pm.meta.stream === this.deps.topology.outboundStream('marketing') ? 'marketing' : 'service';
    let msg: OutboundMessage;
    try {
      msg = pm.json<OutboundMessage>();
    } catch {
      this.count(streamPriority, 'invalid');
      return settle.dead('the outbound message is not valid JSON');
    }
    const problem = describeInvalid(msg, this.channel);
    if (problem) {
      this.count(streamPriority, 'invalid');
      if (typeof msg?.id === 'string' && msg.id && problem !== 'no id') {
        await this.deps.publish(messageFailedEvent(msg, { code: 'invalid_message', title: problem }));
      }
      return settle.dead(`invalid outbound message: ${problem}`);
    }
    const priority: Priority = msg.priority === 'marketing' ? 'marketing' : streamPriority;
    try {
      return await this.deliverMessage(pm, msg, priority);
    } catch (err) {
      if (err instanceof PacingAbortedError) return settle.retry('the worker is stopping', 0);
      this.noteError(err);
      this.logger.warn({ err, message_id: msg.id, channel: this.channel }, 'delivery attempt failed');
      if (!this.isLastDelivery(pm)) throw err; // the runner retries with backoff
      return this.giveUpAfterError(msg, priority, err);
    }
  }

  /** The last delivery ended in an unexpected error: say so with message.failed, unless it was sent. */
  private async giveUpAfterError(msg: OutboundMessage, priority: Priority, err: unknown): Promise<Settlement> {
    const reason = err instanceof Error ? err.message : String(err);
    const known = await this.store?.read(msg.id).catch(() => undefined);
    if (known && isDelivered(known.state)) {
      return settle.retry(reason); // exhausted: the runner dead-letters it; the state keeps the truth
    }
    await this.deps.publish(messageFailedEvent(msg, { code: 'delivery_error', title: reason.slice(0, 200) }));
    this.count(priority, 'failed');
    return settle.dead(`delivery_error: ${reason}`);
  }

  private async deliverMessage(pm: PulledMessage, msg: OutboundMessage, priority: Priority): Promise<Settlement> {
    const store = this.requireStore();
    const signal = this.abort.signal;

    // 1. What happened to this message before (a redelivery after a crash or a timeout)?
    let entry = await store.read(msg.id);
    if (entry.state?.status === 'sending') entry = await this.awaitUncertain(msg.id, entry, entry.state.since);
    const earlier = entry.state;
    if (isDelivered(earlier)) return this.finishSent(msg, priority, earlier.providerMessageId, 'resumed');
    if (earlier?.status === 'failed') {
      await this.deps.publish(messageFailedEvent(msg, { code: earlier.code, title: earlier.title }));
      this.count(priority, 'failed');
      return settle.ack();
    }

    // 2. Pace: the channel's backoff, then the sender's rate and the recipient's interval.
    await sleepUntil(this.backedOffUntil, Date.now, signal);
    const sender = msg.sender.connection_id;
    const lease = await this.deps.pacer.acquire(sender, msg.recipient, signal);
    queuePacedWait()
      .labels(this.channel)
      .observe(lease.waitedMs / 1000);

    let result: SendResult;
    try {
      // 3. Claim: from here on a crash leaves `sending`, and a redelivery knows the outcome is unknown.
      try {
        await store.claim(msg.id, entry.revision, { status: 'sending', since: Date.now() });
      } catch (err) {
        if (!(err instanceof DeliveryStateConflictError)) throw err;
        const now = await store.read(msg.id);
        if (isDelivered(now.state)) return this.finishSent(msg, priority, now.state.providerMessageId, 'resumed');
        // Another worker holds the same message (ack timer ran out): let the state settle first.
        this.count(priority, 'retry');
        return settle.retry('another delivery attempt is under way', this.deps.options.sendTimeoutMs);
      }

      // 4. The channel call.
      const started = process.hrtime.bigint();
      try {
        result = await this.deps.connector.send(msg);
      } finally {
        queueSendDuration()
          .labels(this.channel)
          .observe(Number(process.hrtime.bigint() - started) / 1e9);
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
    return this.handleFailure(pm, msg, priority, result);
  }

  private async handleFailure(
    pm: PulledMessage,
    msg: OutboundMessage,
    priority: Priority,
    result: Extract<SendResult, { ok: false }>,
  ): Promise<Settlement> {
    const store = this.requireStore();
    const reason = `${result.code}: ${result.title}`;
    const last = this.isLastDelivery(pm);
    if (!result.retryable || last) {
      await store.write(msg.id, { status: 'failed', code: result.code, title: result.title });
      await this.deps.publish(messageFailedEvent(msg, { code: result.code, title: result.title }));
      this.count(priority, 'failed');
      this.logger.warn({ message_id: msg.id, channel: this.channel, code: result.code, last }, 'message failed');
      // A final refusal is settled; an exhausted retryable one keeps a copy in the dead letter stream.
      return result.retryable ? settle.dead(`exhausted ${pm.meta.deliveryCount} deliveries: ${reason}`) : settle.ack();
    }
    // A timed-out call may still have been taken: `sending` stays, so the retry looks for a callback first.
    if (!outcomeUnknown(result)) await store.write(msg.id, { status: 'rejected', code: result.code });
    if (result.code === PAIR_RATE_LIMIT) {
      // Too many messages to this one recipient: the sender itself may go on.
    } else if (result.retryAfterMs !== undefined) {
      // The channel asked this sender to slow down: pause it, not the whole channel.
      this.deps.pacer.pause(msg.sender.connection_id, Date.now() + result.retryAfterMs);
    } else {
      this.noteChannelFailure();
    }
    this.count(priority, 'retry');
    const delay =
      result.retryAfterMs !== undefined
        ? Math.max(result.retryAfterMs, backoffDelay(pm.meta.deliveryCount, this.deps.options.backoff))
        : undefined;
    return settle.retry(reason, delay);
  }

  /** Repeated transient failures pause the whole channel, longer each time, until a send succeeds. */
  private noteChannelFailure(): void {
    const { failureThreshold, backoff } = this.deps.options;
    this.consecutiveFailures++;
    if (this.consecutiveFailures < failureThreshold) return;
    const until = Date.now() + backoffDelay(this.consecutiveFailures - failureThreshold + 1, backoff);
    if (until > this.backedOffUntil) {
      this.backedOffUntil = until;
      this.logger.warn(
        { channel: this.channel, until: new Date(until).toISOString(), failures: this.consecutiveFailures },
        'channel backed off',
      );
    }
  }

  /**
   * A previous attempt started a channel call and never recorded its outcome (its worker died, or
   * the call timed out). The channel may have taken the message: wait until that call must have
   * ended plus the grace period, watching for the state to become sent or observed.
   */
  private async awaitUncertain(
    messageId: string,
    entry: DeliveryStateEntry,
    since: number,
  ): Promise<DeliveryStateEntry> {
    const store = this.requireStore();
    const { sendTimeoutMs, uncertainGraceMs } = this.deps.options;
    const deadline = since + sendTimeoutMs + uncertainGraceMs;
    let current = entry;
    while (!isDelivered(current.state) && Date.now() < deadline) {
      await sleepUntil(Math.min(deadline, Date.now() + POLL_MS), Date.now, this.abort.signal);
      current = await store.read(messageId);
      if (current.state?.status !== 'sending' && !isDelivered(current.state)) break;
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
    await this.deps.publish(messageSentEvent(msg, providerMessageId));
    this.count(priority, outcome);
    return settle.ack();
  }

  private requireStore(): DeliveryStateStore {
    if (!this.store) throw new Error('delivery state store is not open');
    return this.store;
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
