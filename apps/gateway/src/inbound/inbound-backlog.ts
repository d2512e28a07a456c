/** How soon after a store in INBOUND the relay's progress is looked at, and again while something waits. */
export const BACKLOG_LOOK_MS = 100;

/** Keys remembered as waiting in INBOUND; past this every event goes through INBOUND until the relay catches up. */
export const BACKLOG_MAX_KEYS = 20_000;

/** How far the relay has come: every message of INBOUND up to `ackFloor` is relayed (acknowledged). */
export interface RelayProgress {
  ackFloor: number;
  /** The stream's last sequence, when asked for. */
  lastSeq?: number;
}

/**
 * What this process stored in INBOUND that the relay may not have taken yet, by ordering key (the
 * id of the message whose status it stored), so that a later event with the same key follows it
 * through INBOUND instead of overtaking it on the way to EVENTS. A key stops waiting once the
 * relay's acknowledgement floor passes the stream sequence of its last store. Until a first look
 * at the relay (a process does not know what an earlier one left there), and while more keys wait
 * than it remembers, every key waits for a fixed sequence: the stream's last at start, the last
 * store's when the keys overflowed.
 */
export class InboundBacklog {
  /** Key -> the stream sequence of its last store in INBOUND. */
  private readonly waiting = new Map<string, number>();
  /** Key -> stores in INBOUND under way (no sequence yet). */
  private readonly underWay = new Map<string, number>();
  /** Every key waits until the floor reaches this (null: none such). Undefined: not looked yet. */
  private everything: number | null | undefined = undefined;
  private highest = 0;
  private timer?: NodeJS.Timeout;
  private stopped = true;

  constructor(
    private readonly progress: (withLastSeq: boolean) => Promise<RelayProgress>,
    private readonly lookMs = BACKLOG_LOOK_MS,
  ) {}

  /** Whether an event with this key may skip INBOUND without overtaking one this process stored there. */
  mayPass(key: string): boolean {
    return this.everything === null && !this.waiting.has(key) && !this.underWay.has(key);
  }

  /** Starts looking at the relay. */
  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Runs a store in INBOUND (resolving to its stream sequence): events with its key follow it there until it is relayed. */
  async storing<T extends { seq: number }>(key: string, store: () => Promise<T>): Promise<T> {
    this.underWay.set(key, (this.underWay.get(key) ?? 0) + 1);
    let seq = 0;
    try {
      const stored = await store();
      seq = stored.seq;
      return stored;
    } finally {
      const left = this.underWay.get(key)! - 1;
      if (left) this.underWay.set(key, left);
      else this.underWay.delete(key);
      // A failed store may still have been stored: it waits like the others, for the highest sequence seen.
      seq ||= this.highest;
      this.highest = Math.max(this.highest, seq);
      this.wait(key, seq);
      this.schedule(this.lookMs);
    }
  }

  private wait(key: string, seq: number): void {
    if (this.waiting.size >= BACKLOG_MAX_KEYS && !this.waiting.has(key)) {
      this.waiting.clear();
      this.everything = Math.max(this.everything ?? 0, this.highest);
      return;
    }
    this.waiting.set(key, Math.max(seq, this.waiting.get(key) ?? 0));
  }

  private schedule(ms: number): void {
    if (this.timer || this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.look();
    }, ms);
    this.timer.unref();
  }

  private async look(): Promise<void> {
    let seen: RelayProgress;
    try {
      seen = await this.progress(this.everything === undefined);
    } catch {
      this.schedule(this.lookMs);
      return;
    }
    if (this.everything === undefined) this.everything = seen.lastSeq ?? 0;
    if (this.everything !== null && seen.ackFloor >= this.everything) this.everything = null;
    for (const [key, seq] of this.waiting) if (seq <= seen.ackFloor) this.waiting.delete(key);
    if (this.everything !== null || this.waiting.size) this.schedule(this.lookMs);
  }
}
