/** Limits of one channel's senders. */
export interface PacingLimits {
  /** Messages per second per sender. */
  ratePerSender: number;
  /** Messages a sender may send back to back before the rate applies (1: evenly spaced). */
  burst: number;
  /** Least milliseconds between two messages from one sender to one recipient; 0 disables. */
  recipientIntervalMs: number;
}

/** Raised when a wait is cut short because the worker is stopping. */
export class PacingAbortedError extends Error {
  constructor() {
    super('pacing wait aborted: the worker is stopping');
    this.name = 'PacingAbortedError';
  }
}

interface SenderBucket {
  /** Theoretical arrival time of the next message (GCRA), unix ms. */
  tat: number;
  /** Nothing goes out before this (the channel asked us to back off), unix ms. */
  pausedUntil: number;
}

interface RecipientLane {
  /** When the last call to the channel for this recipient finished, unix ms. */
  lastDone: number;
  /** Resolves when the message currently holding the lane has finished its call. */
  tail: Promise<void>;
  waiters: number;
}

/** Permission to send one message: how long it waited, and what to call when the send is over. */
export interface PacingLease {
  waitedMs: number;
  done: () => void;
}

/**
 * Paces one channel's sends: a token bucket per sender (the generic cell rate algorithm, so
 * concurrent callers get consecutive slots instead of racing for tokens) and, per sender and
 * recipient, a least interval between two messages. A paced message waits here, in the worker,
 * rather than going back to the stream.
 */
export class SendPacer {
  private readonly senders = new Map<string, SenderBucket>();
  private readonly lanes = new Map<string, RecipientLane>();
  private readonly intervalMs: number;
  private readonly toleranceMs: number;
  private sweptAt = 0;

  constructor(
    private readonly limits: PacingLimits,
    private readonly now: () => number = Date.now,
  ) {
    this.intervalMs = 1000 / limits.ratePerSender;
    this.toleranceMs = (Math.max(1, limits.burst) - 1) * this.intervalMs;
  }

  /**
   * Resolves when a message from `sender` to `recipient` may go, with how long it waited (ms) and
   * `done`, to call once the channel call has finished (whatever its outcome). The next message
   * to the same recipient waits for `done` and then the interval, so the channel sees two arrivals
   * at least the interval apart however long each call took. Rejects with PacingAbortedError when
   * `signal` aborts first.
   */
  async acquire(sender: string, recipient: string, signal?: AbortSignal): Promise<PacingLease> {
    const started = this.now();
    if (this.limits.recipientIntervalMs <= 0) {
      await this.takeSenderSlot(sender, signal);
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
      await this.takeSenderSlot(sender, signal);
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
  pause(sender: string, until: number): void {
    const b = this.bucket(sender);
    b.pausedUntil = Math.max(b.pausedUntil, until);
  }

  /** Senders currently paused, with the time their pause ends. */
  pausedSenders(): Record<string, number> {
    const now = this.now();
    const out: Record<string, number> = {};
    for (const [sender, b] of this.senders) if (b.pausedUntil > now) out[sender] = b.pausedUntil;
    return out;
  }

  private bucket(sender: string): SenderBucket {
    let b = this.senders.get(sender);
    if (!b) {
      b = { tat: 0, pausedUntil: 0 };
      this.senders.set(sender, b);
    }
    return b;
  }

  /** Reserves the sender's next slot and sleeps until it; re-reserves if a pause began meanwhile. */
  private async takeSenderSlot(sender: string, signal?: AbortSignal): Promise<void> {
    const b = this.bucket(sender);
    for (;;) {
      const now = this.now();
      const grant = Math.max(now, b.tat - this.toleranceMs, b.pausedUntil);
      b.tat = Math.max(b.tat, grant) + this.intervalMs;
      await sleepUntil(grant, this.now, signal);
      if (b.pausedUntil <= this.now()) return;
    }
  }

  /** Forgets recipient lanes nobody waits on and whose interval has passed (bounded memory). */
  private sweep(): void {
    const now = this.now();
    if (now - this.sweptAt < 1000) return;
    this.sweptAt = now;
    for (const [key, lane] of this.lanes) {
      if (lane.waiters === 0 && lane.lastDone + this.limits.recipientIntervalMs <= now) this.lanes.delete(key);
    }
  }
}

/** Sleeps until `at` (unix ms); rejects with PacingAbortedError when `signal` aborts. */
export function sleepUntil(at: number, now: () => number = Date.now, signal?: AbortSignal): Promise<void> {
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
