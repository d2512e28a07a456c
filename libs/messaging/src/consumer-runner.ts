import { JetStreamApiError, JetStreamClient } from '@nats-io/jetstream';
import { NatsConnection, Subscription } from '@nats-io/nats-core';
import { toHeaders } from './publisher';
import { contextFrom, inSpan, messagingAttributes, SpanKind, tracingEnabled } from './tracing';
import { PulledMessage, pullNoWait } from './pulled-message';

/** What a handler decided about one message. */
export type Settlement =
  | { action: 'ack' }
  /**
   * Try again later (transient failure); `delayMs` overrides the exponential backoff. `unconfirmed`:
   * the nak is not waited for (a message merely put back for a while; a nak lost on the way brings
   * it back after the ack wait instead).
   */
  | { action: 'retry'; reason: string; delayMs?: number; unconfirmed?: boolean }
  /** Give up now: copy to the dead letter stream with the reason, then term. */
  | { action: 'dead'; reason: string };

export const settle = {
  ack: (): Settlement => ({ action: 'ack' }),
  retry: (reason: string, delayMs?: number): Settlement => ({ action: 'retry', reason, delayMs }),
  /** Back to the stream for `delayMs`, not a failure: the nak is sent without waiting for the server. */
  putBack: (reason: string, delayMs: number): Settlement => ({ action: 'retry', reason, delayMs, unconfirmed: true }),
  dead: (reason: string): Settlement => ({ action: 'dead', reason }),
};

/** Returning nothing acks. Throwing is a transient failure: retried with backoff, never termed early. */
export type MessageHandler = (msg: PulledMessage) => Promise<Settlement | void>;

export interface ConsumerSource {
  stream: string;
  consumer: string;
  /** Deliveries allowed before the message goes to the dead letter stream (the consumer's max_deliver). */
  maxDeliver: number;
}

export interface BackoffOptions {
  baseMs: number;
  maxMs: number;
}

export interface RunnerOptions {
  /** Sources in priority order: a later source is pulled only when every earlier one is empty. */
  sources: ConsumerSource[];
  handler: MessageHandler;
  /** Where exhausted messages go: a subject of the DEAD_LETTER stream, per source. */
  deadLetterSubject: (source: ConsumerSource) => string;
  /**
   * What a dead-letter copy carries instead of the message itself (its metadata without content).
   * Without it the copy is the message as it was.
   */
  deadLetterBody?: (msg: PulledMessage, reason: string) => Uint8Array;
  /**
   * Removes a dead-lettered message from its source stream (a work queue keeps a termed message
   * until its max age), so that its content is gone once it is settled.
   */
  removeDeadLettered?: boolean;
  backoff?: BackoffOptions;
  /** Messages pulled per request and handled concurrently. */
  batch?: number;
  /**
   * Continuous mode: instead of handling one batch at a time, each source keeps up to this many
   * messages in hand and is topped up as they settle, and a later source is pulled only while every
   * earlier one has nothing more to give. A message that waits long (pacing) then never holds back
   * a higher-priority one pulled after it.
   */
  inHandPerSource?: number;
  /** Subjects whose publications wake an idle runner at once (the sources' filter subjects). */
  wakeSubjects?: string[];
  /** An idle runner looks again at least this often (delayed redeliveries appear silently). */
  idlePollMs?: number;
  /**
   * After a pull that was not full, the next one waits this long (0: none), so that under a steady
   * stream of publications one pull carries the messages of that interval instead of one pull (and
   * one wake-up of every process on the way) per message. The first message after an idle spell is
   * still taken at once.
   */
  lingerMs?: number;
  onError?: (err: unknown, context: Record<string, unknown>) => void;
}

/**
 * The linger of the consumers of events (EVENTS, INBOUND): a status or a webhook may wait this
 * much longer, and a steady stream of events costs a pull per interval instead of one per event.
 */
export const EVENTS_LINGER_MS = 10;

/**
 * A publication reaches the wake subscribers as the server reads it, a moment before its stream
 * has stored it, so the pull a wake prompts can come back empty. When a wake that ended an idle
 * wait finds nothing, the runner asks again, giving the pull this long for a first message (the
 * server answers as soon as one is stored) instead of waiting for its idle poll. One batch at a
 * time, it asks its first source and waits for the answer; continuously, it asks every source it
 * found empty and takes what comes without waiting, so that no source waits behind another's pull.
 */
export const WAKE_WAIT_MS = 100;

export function backoffDelay(deliveryCount: number, o: BackoffOptions): number {
  const exp = o.baseMs * 2 ** Math.max(0, deliveryCount - 1);
  return Math.min(o.maxMs, exp);
}

/**
 * Pulls from one or more durable consumers in strict priority order and settles every message
 * explicitly: ack on success, nak with exponential backoff on a transient failure, and after the
 * last allowed delivery a copy to the dead letter stream (with the reason) followed by term.
 */
export class ConsumerRunner {
  private running = false;
  private loop?: Promise<void>;
  private wake?: () => void;
  private woken = false;
  /** A wake subject's publication ended the last idle wait. */
  private wakeSeen = false;
  /** The armed wake subscriptions, by subject (see arm). */
  private readonly wakeSubs = new Map<string, Subscription>();
  private readonly backoff: BackoffOptions;
  private readonly batch: number;
  private readonly idlePollMs: number;
  private inFlight = 0;
  /** Continuous mode: messages in hand per source, and their settlements (awaited by stop). */
  private readonly inHand = new Map<ConsumerSource, number>();
  private readonly pending = new Set<Promise<void>>();
  /** Continuous mode: sources with a pull given WAKE_WAIT_MS under way. */
  private readonly waiting = new Set<ConsumerSource>();

  constructor(
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly opts: RunnerOptions,
  ) {
    this.backoff = opts.backoff ?? { baseMs: 1000, maxMs: 5 * 60_000 };
    this.batch = opts.batch ?? 10;
    this.idlePollMs = opts.idlePollMs ?? 250;
  }

  get isRunning(): boolean {
    return this.running;
  }

  get busy(): number {
    return this.inFlight;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /**
   * Subscribes each wake subject for its next publication only (the server drops the subscription
   * after one delivery), renewed at every look at the sources. A wake matters once per look: the
   * first publication after it ends the idle wait (or the next one), and every later one until the
   * next look would change nothing. A subscription kept for good would have every publication of
   * a busy stream (its whole content) sent to this process once more for nothing.
   */
  private arm(): void {
    for (const subject of this.opts.wakeSubjects ?? []) {
      if (this.wakeSubs.has(subject)) continue;
      const sub: Subscription = this.nc.subscribe(subject, {
        max: 1,
        callback: () => {
          if (this.wakeSubs.get(subject) === sub) this.wakeSubs.delete(subject);
          // Only a wake that ends an idle wait: one that comes while the runner pulls or
          // handles is most often for a message that pull already took.
          if (this.wake) this.wakeSeen = true;
          this.poke();
        },
      });
      this.wakeSubs.set(subject, sub);
    }
  }

  /** Stops pulling and waits for the messages in hand to be settled. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    for (const s of this.wakeSubs.values()) s.unsubscribe();
    this.wakeSubs.clear();
    await this.loop;
    // A pull still under way hands its messages over as it ends; those are settled too.
    while (this.pending.size) await Promise.all(this.pending);
  }

  private async run(): Promise<void> {
    if (this.opts.inHandPerSource) return this.runContinuous(this.opts.inHandPerSource);
    while (this.running) {
      this.arm();
      let handled = 0;
      try {
        handled = await this.pullOnce();
      } catch (err) {
        this.opts.onError?.(err, { phase: 'pull' });
        await this.idle(1000);
        continue;
      }
      if (handled === 0) await this.idle(this.idlePollMs);
      else if (handled < this.batch && this.opts.lingerMs) await this.linger(this.opts.lingerMs);
    }
  }

  /** Waits `ms` whatever wakes arrive meanwhile (the pull after it takes what they announced). */
  private async linger(ms: number): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, ms));
    this.woken = false;
  }

  /** Pulls one batch from the first source that has work and handles it; returns how many. */
  async pullOnce(): Promise<number> {
    const woke = this.takeWake();
    for (const source of this.opts.sources) {
      if (!this.running && this.loop) return 0;
      const msgs = await pullNoWait(this.nc, source.stream, source.consumer, this.batch);
      if (msgs.length === 0) continue;
      await Promise.all(msgs.map((m) => this.handle(source, m)));
      return msgs.length;
    }
    if (!woke || !this.running) return 0;
    const first = this.opts.sources[0];
    const late = await this.pullWaitingForFirst(first, this.batch);
    await Promise.all(late.map((m) => this.handle(first, m)));
    return late.length;
  }

  /** Whether a wake ended the idle wait before this look, and forgets it. */
  private takeWake(): boolean {
    const woke = this.wakeSeen;
    this.wakeSeen = false;
    return woke;
  }

  /** A pull of up to `batch` that an empty consumer answers once a first message is stored (WAKE_WAIT_MS at most). */
  private pullWaitingForFirst(source: ConsumerSource, batch: number): Promise<PulledMessage[]> {
    return pullNoWait(this.nc, source.stream, source.consumer, batch, undefined, WAKE_WAIT_MS);
  }

  /**
   * Continuous mode, after a wake whose pull found `source` empty: pulls it again, given
   * WAKE_WAIT_MS for a first message, without waiting for the answer; what comes is held.
   */
  private waitForFirst(source: ConsumerSource, room: number): void {
    this.waiting.add(source);
    const p: Promise<void> = this.pullWaitingForFirst(source, room)
      .then((msgs) => {
        for (const m of msgs) this.hold(source, m);
        if (msgs.length) this.poke();
      })
      .catch((err: unknown) => this.opts.onError?.(err, { phase: 'pull' }))
      .finally(() => {
        this.waiting.delete(source);
        this.pending.delete(p);
      });
    this.pending.add(p);
  }

  private get continuousLimit(): number {
    return this.opts.inHandPerSource ?? 0;
  }

  /** Topping up one message at a time would cost a pull per message: a source waits for a quarter of room. */
  private get lowWater(): number {
    return Math.max(1, Math.floor(this.continuousLimit / 4));
  }

  private async runContinuous(limit: number): Promise<void> {
    const lowWater = this.lowWater;
    while (this.running) {
      this.arm();
      let pulled = 0;
      try {
        const woke = this.takeWake();
        for (const source of this.opts.sources) {
          // Empty a moment ago, and its pull under way takes whatever comes: nothing to ask now.
          if (this.waiting.has(source)) continue;
          const held = this.inHand.get(source) ?? 0;
          const room = limit - held;
          if (room < lowWater && held > 0) break; // this source is busy: nothing below it goes first
          const msgs = await pullNoWait(this.nc, source.stream, source.consumer, room);
          for (const m of msgs) this.hold(source, m);
          pulled += msgs.length;
          if (msgs.length === room) break; // it may have more: lower sources wait
          if (msgs.length === 0 && woke && this.running) this.waitForFirst(source, room);
        }
      } catch (err) {
        this.opts.onError?.(err, { phase: 'pull' });
        await this.idle(1000);
        continue;
      }
      if (pulled === 0) await this.idle(this.idlePollMs);
    }
  }

  private hold(source: ConsumerSource, msg: PulledMessage): void {
    this.inHand.set(source, (this.inHand.get(source) ?? 0) + 1);
    // A message the handler stepped aside (it waits for its turn) leaves the count until it steps back.
    let aside = false;
    msg.bindAllowance({
      stepAside: () => {
        if (aside) return;
        aside = true;
        this.leaveHand(source);
      },
      stepBack: () => {
        if (!aside) return;
        aside = false;
        this.inHand.set(source, (this.inHand.get(source) ?? 0) + 1);
      },
    });
    const p = this.handle(source, msg).finally(() => {
      this.pending.delete(p);
      if (!aside) this.leaveHand(source);
    });
    this.pending.add(p);
  }

  private leaveHand(source: ConsumerSource): void {
    const held = (this.inHand.get(source) ?? 1) - 1;
    this.inHand.set(source, held);
    // Wake the loop when the source has room for a worthwhile pull, not on every settlement.
    if (held === 0 || this.continuousLimit - held === this.lowWater) this.poke();
  }

  /** Ends the current idle wait, or the next one at once if the loop is busy right now. */
  private poke(): void {
    if (this.wake) this.wake();
    else this.woken = true;
  }

  private idle(ms: number): Promise<void> {
    // Stopped while it pulled: nothing would end the wait but its timer.
    if (!this.running) return Promise.resolve();
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      // Ended by its timer or by a poke; either way the wait is over, so a later poke must set
      // `woken` for the next wait rather than end this one again (and be lost).
      const done = () => {
        clearTimeout(timer);
        if (this.wake === done) this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }

  private async handle(source: ConsumerSource, msg: PulledMessage): Promise<void> {
    this.inFlight++;
    try {
      let outcome: Settlement;
      try {
        outcome = (await this.traced(msg)) ?? settle.ack();
      } catch (err) {
        this.opts.onError?.(err, { phase: 'handle', stream: source.stream, seq: msg.meta.streamSeq });
        outcome = settle.retry(err instanceof Error ? err.message : String(err));
      }
      await this.apply(source, msg, outcome);
    } catch (err) {
      // Settling failed (connection lost): the server redelivers after ack_wait, nothing is lost.
      this.opts.onError?.(err, { phase: 'settle', stream: source.stream, seq: msg.meta.streamSeq });
    } finally {
      this.inFlight--;
    }
  }

  /** The handler; tracing on, in a consumer span that continues the trace the message's headers name. */
  private traced(msg: PulledMessage): Promise<Settlement | void> {
    if (!tracingEnabled()) return this.opts.handler(msg);
    const attributes = messagingAttributes('process', msg.subject, msg.msgId);
    return inSpan(
      `process ${msg.subject}`,
      { kind: SpanKind.CONSUMER, parent: contextFrom(msg.headers), attributes },
      () => this.opts.handler(msg),
    );
  }

  private async apply(source: ConsumerSource, msg: PulledMessage, outcome: Settlement): Promise<void> {
    if (outcome.action === 'ack') return msg.ack();
    const exhausted = source.maxDeliver > 0 && msg.meta.deliveryCount >= source.maxDeliver;
    if (outcome.action === 'retry' && !exhausted) {
      return msg.nak(outcome.delayMs ?? backoffDelay(msg.meta.deliveryCount, this.backoff), !outcome.unconfirmed);
    }
    const reason =
      outcome.action === 'dead' ? outcome.reason : `exhausted ${msg.meta.deliveryCount} deliveries: ${outcome.reason}`;
    await deadLetter(
      this.js,
      this.opts.deadLetterSubject(source),
      msg,
      reason,
      this.opts.deadLetterBody?.(msg, reason),
    );
    if (this.opts.removeDeadLettered) await removeMessage(this.js, msg);
    await msg.term(reason.slice(0, 200));
  }
}

/** Erases a message from its stream; one already gone (removed by an earlier attempt) is fine. */
export async function removeMessage(js: JetStreamClient, msg: PulledMessage): Promise<void> {
  const jsm = await js.jetstreamManager(false);
  try {
    await jsm.streams.deleteMessage(msg.meta.stream, msg.meta.streamSeq, true);
  } catch (err) {
    if (!isAlreadyGone(err)) throw err;
  }
}

/**
 * The delete failed because the stream no longer holds the sequence: a memory store says so with
 * its own code, a file store with the generic delete failure and its store's words.
 */
function isAlreadyGone(err: unknown): boolean {
  if (!(err instanceof JetStreamApiError)) return false;
  return (
    err.code === JS_SEQUENCE_NOT_FOUND ||
    (err.code === JS_MSG_DELETE_FAILED && /no message found|EOF/i.test(err.message))
  );
}

const JS_SEQUENCE_NOT_FOUND = 10043;
const JS_MSG_DELETE_FAILED = 10057;

/** Copies a message (or `body` in its place) to the dead letter stream with why and where it came from. */
export async function deadLetter(
  js: JetStreamClient,
  subject: string,
  msg: PulledMessage,
  reason: string,
  body: Uint8Array = msg.data,
): Promise<void> {
  const headers: Record<string, string> = {
    'Dlq-Reason': reason.replace(/[\r\n]+/g, ' ').slice(0, 1024),
    'Dlq-Stream': msg.meta.stream,
    'Dlq-Consumer': msg.meta.consumer,
    'Dlq-Subject': msg.subject,
    'Dlq-Stream-Seq': String(msg.meta.streamSeq),
    'Dlq-Deliveries': String(msg.meta.deliveryCount),
  };
  for (const [k, v] of msg.headers ?? []) {
    if (k.toLowerCase() === 'nats-msg-id') continue;
    headers[k] ??= v.join(',');
  }
  await js.publish(subject, body, {
    msgID: `dlq-${msg.meta.stream}-${msg.meta.streamSeq}`,
    headers: toHeaders(headers),
  });
}
