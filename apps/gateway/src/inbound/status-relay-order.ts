import { RecentSet } from './recent-set';

/** Where a relayed message sits in INBOUND: its subject and its stream sequence. */
export interface InboundPosition {
  subject: string;
  seq: number;
}

/** Sequences relayed lately by this process: INBOUND may still show one until its acknowledgement lands. */
const RELAYED_REMEMBERED = 10_000;

/**
 * Keeps one message's statuses in INBOUND order when several gateway replicas relay the stream:
 * each takes its own batches, so a message's `read` may reach one replica while its `delivered`
 * is with another, or waits there for a retry. A message's statuses share a subject; before a
 * status is published, every earlier one still in INBOUND under that subject must be relayed by
 * this process already, or be ahead of it in this process's chain (it waits for that one's
 * outcome). Otherwise the status goes back to INBOUND and is tried again later.
 */
export class StatusRelayOrder {
  private tickets = 0;
  /** Sequence -> its place in this process's chain and its outcome (true: relayed). */
  private readonly relaying = new Map<number, { ticket: number; done: Promise<boolean> }>();
  private readonly relayed = new RecentSet<number>(RELAYED_REMEMBERED);

  /** `nextStored`: the first sequence at or after `fromSeq` still in INBOUND under `subject`, null if none. */
  constructor(private readonly nextStored: (subject: string, fromSeq: number) => Promise<number | null>) {}

  /**
   * Relays the status at `at` with `step`, which is handed whether every earlier status of its
   * message is relayed (false: one is not yet, and `step` resolves false without publishing) and
   * resolves whether it published. Call in the order the relay's chain starts its steps.
   */
  async relay(at: InboundPosition, step: (earlierRelayed: Promise<boolean>) => Promise<boolean>): Promise<boolean> {
    const ticket = ++this.tickets;
    const earlier = this.earlierRelayed(at, ticket);
    // Settled by `step` in its turn; a failure meanwhile must not count as unhandled.
    earlier.catch(() => undefined);
    const done = step(earlier);
    this.relaying.set(at.seq, { ticket, done });
    try {
      const published = await done;
      if (published) this.relayed.add(at.seq);
      return published;
    } finally {
      if (this.relaying.get(at.seq)?.ticket === ticket) this.relaying.delete(at.seq);
    }
  }

  private async earlierRelayed(at: InboundPosition, ticket: number): Promise<boolean> {
    for (let from = 0; ;) {
      const seq = await this.nextStored(at.subject, from);
      if (seq === null || seq >= at.seq) return true;
      const ahead = this.relaying.get(seq);
      if (ahead && ahead.ticket < ticket) {
        if (!(await ahead.done.catch(() => false))) return false;
      } else if (!this.relayed.has(seq)) {
        return false;
      }
      from = seq + 1;
    }
  }
}
