import { PacingLimits } from '@app/channels';
import { Priority } from '@app/contracts';
import { LocalSenderSlots, SenderSlots } from './sender-slots';

export type { PacingLimits };

/** Raised when a wait is cut short because the worker is stopping. */
export class PacingAbortedError extends Error {
  constructor() {
    super('pacing wait aborted: the worker is stopping');
    this.name = 'PacingAbortedError';
  }
}

interface RecipientLane {
  /** When the last call to the channel for this recipient finished, unix ms. */
  lastDone: number;
  /** Resolves when the message currently holding the lane has finished its call. */
  tail: Promise<void>;
  waiters: number;
}

interface SlotWaiter {
  grant: () => void;
  fail: (err: unknown) => void;
}

/** A sender's messages waiting for a slot, service ahead of marketing, and the slots reserved for them. */
interface SenderLine {
  waiting: Record<Priority, SlotWaiter[]>;
  slots: number[];
  pausedUntil: number;
  pumping: boolean;
  /** When this replica last let one of the sender's messages go, unix ms. */
  lastGrant: number;
}

/** Permission to send one message: how long it waited, and what to call when the send is over. */
export interface PacingLease {
  waitedMs: number;
  done: () => void;
}

/** Slots are reserved at most this far ahead per block (one bucket write per block when shared). */
const BLOCK_MS = 50;

/**
 * Per sender and lane, a replica holds in hand at most the messages its next HOLD_MS of slots can
 * take; the rest go back to the stream until their turn (admit). Enough to cover a deferred
 * message's return (RETURN_LEAD_MS plus the grid) and the worker's next pull.
 */
export const HOLD_MS = 600;
/** A deferred message comes back this long before the slot promised to it... */
export const RETURN_LEAD_MS = 300;
/**
 * ...rounded to this grid, so that returns fall due together: the server looks over a consumer's
 * pending messages each time one falls due, a look per grid step rather than per message.
 */
export const RETURN_GRID_MS = 100;

/** Hold the message in hand until its turn (and `release` it once its send is over), or let it wait on the stream. */
export type Admission = { held: true; release: () => void } | { held: false; deferMs: number };

interface PromiseWaiter {
  resolve: (at: number) => void;
  reject: (err: unknown) => void;
}

interface PromiseBatch {
  waiting: PromiseWaiter[];
  /** A store call for this sender and lane is under way. */
  busy: boolean;
}

/**
 * Paces one channel's sends. Per sender, slots come from a SenderSlots store (this replica's own,
 * or one bucket shared by every replica) at the connector's rate; each slot goes to the sender's
 * oldest waiting service message, and to a marketing message only when no service message waits,
 * so a UTILITY message overtakes a marketing backlog already in hand. Per sender and recipient, a
 * least interval between two messages. A paced message waits here, in the worker, rather than going
 * back to the stream.
 */
export class SendPacer {
  private readonly lines = new Map<string, SenderLine>();
  private readonly lanes = new Map<string, RecipientLane>();
  private readonly block: number;
  private sweptAt = 0;
  /** Messages held in hand per sender and lane (admit). */
  private readonly held = new Map<string, number>();
  /** Per sender and lane, the end of the slots promised to deferred messages, as last seen. */
  private readonly promisedUntil = new Map<string, number>();
  /** Deferrals of one sender and lane waiting for their promised slot. */
  private readonly promising = new Map<string, PromiseBatch>();
  /** Most messages of one sender and lane held in hand at once. */
  readonly holdCap: number;
  /** Least time between two grants of one sender on this replica (0 with a burst). */
  private readonly spacing: number;

  constructor(
    private readonly limits: PacingLimits,
    private readonly now: () => number,
    private readonly slots: SenderSlots = new LocalSenderSlots(limits, now),
  ) {
    this.block = Math.max(1, Math.floor((limits.ratePerSender * BLOCK_MS) / 1000), Math.min(limits.burst, 100));
    this.spacing = limits.burst > 1 ? 0 : 1000 / limits.ratePerSender;
    this.holdCap = Math.max(2, Math.ceil((limits.ratePerSender * HOLD_MS) / 1000) + Math.max(1, limits.burst));
  }

  /**
   * Whether a message of `sender` in `lane` is held in hand until its turn or goes back to the
   * stream for a while, so that a sender with a backlog holds only what its next moments of slots
   * can take and the worker keeps pulling the other senders' messages behind it. Held: below the
   * cap, and (a first delivery) not behind messages of its sender already deferred to later. A
   * first delivery that is deferred is promised its sender's next slot after everything promised
   * before it (shared by every replica) and comes back shortly before it; a message that comes back
   * and still finds the cap full waits the cap's worth of slots once more. `mayDefer` false: held
   * whatever the count (the message has spent its deliveries allowed for waiting).
   */
  async admit(sender: string, lane: Priority, o: { mayDefer: boolean; firstDelivery: boolean }): Promise<Admission> {
    const key = `${sender}\u0000${lane}`;
    const now = this.now();
    this.sweep();
    const held = this.held.get(key) ?? 0;
    const behind = o.firstDelivery && this.promisedEnd(sender, lane) > now + HOLD_MS;
    if (!o.mayDefer || (held < this.holdCap && !behind)) {
      this.held.set(key, held + 1);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        const left = (this.held.get(key) ?? 1) - 1;
        if (left > 0) this.held.set(key, left);
        else this.held.delete(key);
      };
      return { held: true, release };
    }
    if (!o.firstDelivery) return { held: false, deferMs: roundUp(HOLD_MS) };
    const at = await this.promiseSlot(sender, lane, key);
    return { held: false, deferMs: Math.max(RETURN_GRID_MS, roundUp(at - RETURN_LEAD_MS) - this.now()) };
  }

  /** The end of what was promised to the lane's deferred messages (marketing: to either lane, service goes first). */
  private promisedEnd(sender: string, lane: Priority): number {
    const service = this.promisedUntil.get(`${sender}\u0000service`) ?? 0;
    return lane === 'service' ? service : Math.max(service, this.promisedUntil.get(`${sender}\u0000marketing`) ?? 0);
  }

  /**
   * One promised slot. The deferrals of a sender and lane share store calls: one at a time per
   * sender and lane, each for every deferral asked while the one before was under way (concurrent
   * compare-and-sets of one key would only lose to each other).
   */
  private promiseSlot(sender: string, lane: Priority, key: string): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      let batch = this.promising.get(key);
      if (!batch) {
        batch = { waiting: [], busy: false };
        this.promising.set(key, batch);
      }
      batch.waiting.push({ resolve, reject });
      if (!batch.busy) this.flushPromises(sender, lane, key, batch);
    });
  }

  private flushPromises(sender: string, lane: Priority, key: string, batch: PromiseBatch): void {
    batch.busy = true;
    // The rest of this turn's deferrals (one pull's worth) join the call.
    setImmediate(() => {
      const waiting = batch.waiting.splice(0);
      this.slots.promise(sender, lane, waiting.length, HOLD_MS).then(
        (times) => {
          const next = times[times.length - 1] + 1000 / this.limits.ratePerSender;
          this.promisedUntil.set(key, Math.max(this.promisedUntil.get(key) ?? 0, next));
          waiting.forEach((w, i) => w.resolve(times[i]));
          this.afterPromise(sender, lane, key, batch);
        },
        (err: unknown) => {
          waiting.forEach((w) => w.reject(err));
          this.afterPromise(sender, lane, key, batch);
        },
      );
    });
  }

  private afterPromise(sender: string, lane: Priority, key: string, batch: PromiseBatch): void {
    batch.busy = false;
    if (batch.waiting.length) this.flushPromises(sender, lane, key, batch);
    else this.promising.delete(key);
  }

  /**
   * Resolves when a message from `sender` to `recipient` may go, with how long it waited (ms) and
   * `done`, to call once the channel call has finished (whatever its outcome). The next message
   * to the same recipient waits for `done` and then the interval, so the channel sees two arrivals
   * at least the interval apart however long each call took. Rejects with PacingAbortedError when
   * `signal` aborts first.
   */
  async acquire(
    sender: string,
    recipient: string,
    signal?: AbortSignal,
    priority: Priority = 'service',
  ): Promise<PacingLease> {
    const started = this.now();
    if (this.limits.recipientIntervalMs <= 0) {
      await this.takeSenderSlot(sender, priority, signal);
      return { waitedMs: this.now() - started, done: () => undefined };
    }
    const key = `${sender}\u0000${recipient}`;
    let lane = this.lanes.get(key);
    if (!lane) {
      lane = { lastDone: -Infinity, tail: Promise.resolve(), waiters: 0 };
      this.lanes.set(key, lane);
    }
    // One message at a time per recipient: wait for the one ahead to finish its call.
    const ahead = lane.tail;
    let release!: () => void;
    lane.tail = new Promise<void>((resolve) => (release = resolve));
    lane.waiters++;
    const current = lane;
    let finished = false;
    const done = () => {
      if (finished) return;
      finished = true;
      current.lastDone = this.now();
      current.waiters--;
      release();
      this.sweep();
    };
    try {
      await ahead;
      await sleepUntil(lane.lastDone + this.limits.recipientIntervalMs, this.now, signal);
      await this.takeSenderSlot(sender, priority, signal);
    } catch (err) {
      // Never let through: the next message measures from the previous call, not from this wait.
      finished = true;
      current.waiters--;
      release();
      throw err;
    }
    return { waitedMs: this.now() - started, done };
  }

  /** Stops every send of `sender` until `until` (unix ms), e.g. after the channel answered 429. */
  async pause(sender: string, until: number): Promise<void> {
    const line = this.line(sender);
    line.pausedUntil = Math.max(line.pausedUntil, until);
    await this.slots.pause(sender, until);
  }

  /** Senders currently paused, with the time their pause ends. */
  pausedSenders(): Record<string, number> {
    const now = this.now();
    const out: Record<string, number> = {};
    for (const [sender, line] of this.lines) if (line.pausedUntil > now) out[sender] = line.pausedUntil;
    return out;
  }

  private line(sender: string): SenderLine {
    let line = this.lines.get(sender);
    if (!line) {
      line = { waiting: { service: [], marketing: [] }, slots: [], pausedUntil: 0, pumping: false, lastGrant: 0 };
      this.lines.set(sender, line);
    }
    return line;
  }

  /** Queues for the sender's next slot in the message's lane; the sender's pump hands slots out. */
  private takeSenderSlot(sender: string, priority: Priority, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(new PacingAbortedError());
    const line = this.line(sender);
    return new Promise<void>((resolve, reject) => {
      const waiter: SlotWaiter = {
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        fail: (err) => {
          signal?.removeEventListener('abort', onAbort);
          reject(err);
        },
      };
      const onAbort = () => {
        const queue = line.waiting[priority];
        const i = queue.indexOf(waiter);
        if (i >= 0) queue.splice(i, 1);
        reject(new PacingAbortedError());
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      line.waiting[priority].push(waiter);
      if (!line.pumping) void this.pump(sender, line);
    });
  }

  /** Gives the sender's slots, in time order, to its waiting messages, service first; ends when none wait. */
  private async pump(sender: string, line: SenderLine): Promise<void> {
    line.pumping = true;
    const waiting = () => line.waiting.service.length + line.waiting.marketing.length;
    try {
      while (waiting() > 0) {
        if (line.pausedUntil > this.now()) {
          line.slots = []; // reserved before the pause: not ours to use any more
          await sleepUntil(line.pausedUntil, this.now);
          continue;
        }
        if (line.slots.length === 0) line.slots = await this.slots.reserve(sender, Math.min(waiting(), this.block));
        const at = line.slots.shift() as number;
        // A slot whose timer fired late (a busy event loop) must not go out together with the next
        // one: without a burst, two grants of this replica are at least an interval apart.
        await sleepUntil(Math.max(at, line.lastGrant + this.spacing), this.now);
        if (line.pausedUntil > this.now()) continue;
        const next = line.waiting.service.shift() ?? line.waiting.marketing.shift();
        if (next) line.lastGrant = this.now();
        next?.grant();
      }
    } catch (err) {
      // The shared store is unreachable: the waiting messages fail and are retried by the worker.
      for (const w of [...line.waiting.service.splice(0), ...line.waiting.marketing.splice(0)]) w.fail(err);
    } finally {
      line.pumping = false;
      // Unused slots are dropped: reserving them again later keeps the shared rate exact.
      line.slots = [];
      if (waiting() === 0 && line.pausedUntil <= this.now()) this.lines.delete(sender);
      else if (waiting() > 0) void this.pump(sender, line);
    }
  }

  /** Forgets recipient lanes nobody waits on and whose interval has passed, and past promises (bounded memory). */
  private sweep(): void {
    const now = this.now();
    if (now - this.sweptAt < 1000) return;
    this.sweptAt = now;
    for (const [key, lane] of this.lanes) {
      if (lane.waiters === 0 && lane.lastDone + this.limits.recipientIntervalMs <= now) this.lanes.delete(key);
    }
    for (const [key, until] of this.promisedUntil) if (until < now) this.promisedUntil.delete(key);
  }
}

/** `at` rounded up to the return grid. */
function roundUp(at: number): number {
  return Math.ceil(at / RETURN_GRID_MS) * RETURN_GRID_MS;
}

/** Sleeps until `at` (unix ms); rejects with PacingAbortedError when `signal` aborts. */
export function sleepUntil(at: number, now: () => number, signal?: AbortSignal): Promise<void> {
  const ms = at - now();
  if (signal?.aborted) return Promise.reject(new PacingAbortedError());
  if (ms <= 0) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(new PacingAbortedError());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
