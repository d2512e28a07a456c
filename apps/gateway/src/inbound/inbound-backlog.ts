/** How soon after a store in INBOUND the relay's progress is looked at, and again while something waits. */
export const BACKLOG_LOOK_MS = 100;

/**
 * How long after a store is seen published another replica waits before it asks INBOUND about it:
 * the stream keeps it a moment after it is seen, and asked too soon it would seem relayed already.
 * Ten looks: a store slower than that to land is a stream in trouble.
 */
export const SEEN_SETTLE_LOOKS = 10;

/** Keys remembered as waiting in INBOUND; past this every event goes through INBOUND until the relay catches up. */
export const BACKLOG_MAX_KEYS = 20_000;

/**
 * Keys seen stored that one look asks INBOUND about one by one; past this, each of them waits for
 * the stream's last sequence instead (one question for all).
 */
export const BACKLOG_LOOKUPS_PER_LOOK = 200;

/** How far the relay has come: every message of INBOUND up to `ackFloor` is relayed (acknowledged). */
export interface RelayProgress {
  ackFloor: number;
  /** The stream's last sequence, when asked for. */
  lastSeq?: number;
}

/** What the backlog asks of INBOUND. */
export interface RelayView {
  progress(withLastSeq: boolean): Promise<RelayProgress>;
  /** The stream sequence of the last message stored under this key that is still in INBOUND; null when none is. */
  lastStored(key: string): Promise<number | null>;
}

/**
 * What waits in INBOUND for the relay, by ordering key (the token of the message whose status was
 * stored), so that a later event with the same key follows it through INBOUND instead of
 * overtaking it on the way to EVENTS. Two sources: this process's own stores (their sequence comes
 * with the store's acknowledgement) and every replica's, seen as they are published (`observed`:
 * the stream's subject carries the key, and every replica listens to it), whose sequence a look
 * asks INBOUND for once the store has had time to land (SEEN_SETTLE_LOOKS). A key stops waiting once the relay's
 * acknowledgement floor passes its sequence, or INBOUND holds nothing under it any more. Until a
 * first look at the relay (a process does not know what was stored before it listened), and while
 * more keys wait than it remembers, every key waits for a fixed sequence: the stream's last at
 * start, the last store's when the keys overflowed.
 */
export class InboundBacklog {
  /** Key -> the stream sequence of its last store in INBOUND. */
  private readonly waiting = new Map<string, number>();
  /** Key -> stores in INBOUND under way (no sequence yet). */
  private readonly underWay = new Map<string, number>();
  /** Key -> when a store under it was seen published (by any replica), its sequence not asked yet. */
  private readonly seen = new Map<string, number>();
  /** Every key waits until the floor reaches this (null: none such). Undefined: not looked yet. */
  private everything: number | null | undefined = undefined;
  private highest = 0;
  private timer?: NodeJS.Timeout;
  private stopped = true;

  private readonly seenSettleMs: number;

  constructor(
    private readonly relay: RelayView,
    private readonly lookMs = BACKLOG_LOOK_MS,
  ) {
    this.seenSettleMs = lookMs * SEEN_SETTLE_LOOKS;
  }

  /** Whether an event with this key may skip INBOUND without overtaking one stored there. */
  mayPass(key: string): boolean {
    return this.everything === null && !this.waiting.has(key) && !this.underWay.has(key) && !this.seen.has(key);
  }

  /** A store under this key was published to INBOUND, by this process or another (its latest, if several). */
  observed(key: string): void {
    this.seen.set(key, Date.now());
    this.schedule(this.lookMs);
  }

  /**
   * Stores were published while this process could not see them (its connection was away): until
   * the relay has taken what the stream holds now, every key waits, as at a start.
   */
  unseenStores(): void {
    this.everything = undefined;
    this.schedule(0);
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
      this.stored(key, seq || this.highest);
      this.schedule(this.lookMs);
    }
  }

  /** Something under this key is in INBOUND up to `seq`: the key waits until the relay passes it. */
  private stored(key: string, seq: number): void {
    this.highest = Math.max(this.highest, seq);
    this.wait(key, seq);
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
    const due = this.dueSeen();
    // Many at once (an outage's backlog): each waits for the stream's last sequence instead.
    const many = due.length > BACKLOG_LOOKUPS_PER_LOOK;
    let seqs: (number | null | undefined)[];
    let progress: RelayProgress;
    try {
      seqs = many ? [] : await Promise.all(due.map(([key]) => this.relay.lastStored(key)));
      progress = await this.relay.progress(this.everything === undefined || many);
    } catch {
      this.schedule(this.lookMs);
      return;
    }
    due.forEach(([key, at], i) => {
      // Seen stored again meanwhile: that store is asked about at a later look.
      if (this.seen.get(key) === at) this.seen.delete(key);
      const seq = many ? progress.lastSeq : seqs[i];
      if (seq) this.stored(key, seq);
    });
    if (this.everything === undefined) this.everything = progress.lastSeq ?? 0;
    if (this.everything !== null && progress.ackFloor >= this.everything) this.everything = null;
    for (const [key, seq] of this.waiting) if (seq <= progress.ackFloor) this.waiting.delete(key);
    if (this.everything !== null || this.waiting.size || this.seen.size) this.schedule(this.lookMs);
  }

  /**
   * The keys seen stored at least SEEN_SETTLE_LOOKS looks ago: a store is seen as it is published,
   * a moment before the stream keeps it, so asking INBOUND sooner could miss it. INBOUND is asked
   * for each one's last sequence; nothing left under a key means it is relayed already.
   */
  private dueSeen(): [key: string, seenAt: number][] {
    const before = Date.now() - this.seenSettleMs;
    const due: [string, number][] = [];
    for (const [key, at] of this.seen) if (at <= before) due.push([key, at]);
    return due;
  }
}
